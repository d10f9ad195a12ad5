package posixid

import (
	"strings"
	"testing"
)

func TestCheckRunAs(t *testing.T) {
	tests := []struct {
		runAs string
		err   string // "" when accepted
	}{
		{"nobody", ""},
		{"0", ""},
		{"65534", ""},
		{"4294967294", ""},
		{"nobody:nogroup", ""},
		{"65534:65534", ""},
		{"svc-backup.1", ""},
		{"4294967295", "user id 4294967295 is out of range"},
		{"4294967296", "user id 4294967296 is out of range"},
		{"4294967297", "user id 4294967297 is out of range"},
		{"9223372036854775808", "user id 9223372036854775808 is out of range"},
		{"99999999999999999999999999", "user id 99999999999999999999999999 is out of range"},
		{"-1", `user "-1" is not a numeric id`},
		{"+0", `user "+0" is not a numeric id`},
		{"65534:4294967296", "group id 4294967296 is out of range"},
		{"65534:-1", `group "-1" is not a numeric id`},
		{"nobody:9223372036854775808", "group id 9223372036854775808 is out of range"},
		{"", `user "" is not a name`},
		{"a b", `user "a b" is not a name`},
		{"nobody:", `group "" is not a name`},
		{strings.Repeat("a", 33), "is not a name"},
	}
	for _, tt := range tests {
		t.Run(tt.runAs, func(t *testing.T) {
			err := CheckRunAs(tt.runAs)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("CheckRunAs(%q) = %v, want nil", tt.runAs, err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("CheckRunAs(%q) = %v, want an error containing %q", tt.runAs, err, tt.err)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want uint32
		ok   bool
	}{
		{"0", 0, true},
		{"1000", 1000, true},
		{"4294967294", 4294967294, true},
		{"4294967295", 0, false},
		{"4294967296", 0, false},
		{"4294967297", 0, false},
		{"9223372036854775808", 0, false},
		{"-1", 0, false},
		{" 1", 0, false},
		{"0x10", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("Parse(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestCheckInt(t *testing.T) {
	for _, n := range []int64{-1, 1 << 32, 1<<32 + 1, 1<<32 - 1, -1 << 63} {
		if CheckInt(n) == nil {
			t.Errorf("CheckInt(%d) = nil, want an error", n)
		}
	}
	for _, n := range []int64{0, 65534, Max} {
		if err := CheckInt(n); err != nil {
			t.Errorf("CheckInt(%d) = %v", n, err)
		}
	}
}

func FuzzCheckRunAs(f *testing.F) {
	for _, s := range []string{"nobody", "0:0", "4294967296", "-1", "a:b:c", "65534:4294967296"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckRunAs(s) != nil {
			return
		}
		u, g, _ := strings.Cut(s, ":")
		for _, p := range []string{u, g} {
			if Numeric(p) {
				if _, err := Parse(p); err != nil {
					t.Fatalf("CheckRunAs(%q) accepted an id Parse refuses: %v", s, err)
				}
			}
		}
	})
}
