package importer

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParseUnit checks unit-file syntax: sections, comments, continuation
// lines (with comments between them), spaces around =, and the lines
// systemd ignores.
func TestParseUnit(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		want     []unitEntry
		warnings []string
		err      string
	}{
		{name: "sections and comments", src: "# c\n[Unit]\nDescription = a b \n; c\n[Timer]\nOnCalendar=daily\n",
			want: []unitEntry{{"Unit", "Description", "a b", 3}, {"Timer", "OnCalendar", "daily", 6}}},
		{name: "continuation", src: "[Service]\nExecStart=/bin/a \\\n  b \\\n# skipped\n  c\nUser=x\n",
			want: []unitEntry{{"Service", "ExecStart", "/bin/a    b    c", 2}, {"Service", "User", "x", 6}}},
		{name: "continuation at the end of the file", src: "[Service]\nExecStart=/bin/a \\",
			want: []unitEntry{{"Service", "ExecStart", "/bin/a", 2}}},
		{name: "CRLF", src: "[Timer]\r\nOnCalendar=daily\r\n", want: []unitEntry{{"Timer", "OnCalendar", "daily", 2}}},
		{name: "outside a section", src: "Key=v\n[Timer]\n", warnings: []string{"u:1: Key= comes before any [Section]"}},
		{name: "not an assignment", src: "[Timer]\nnonsense\n", warnings: []string{`u:2: "nonsense" is not a Key=Value`}},
		{name: "bad header", src: "[Timer\nOnCalendar=x\n", warnings: []string{`u:1: "[Timer" is not a [Section] header`}},
		{name: "NUL", src: "[Timer]\nOn\x00Calendar=x\n", err: "u:2:3: a NUL byte"},
		{name: "not UTF-8", src: "[Timer]\nX=\xff\n", err: "u:2:3: not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := parseUnit("u", []byte(tt.src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil && !reflect.DeepEqual(u.entries, tt.want) {
				t.Errorf("entries %+v, want %+v", u.entries, tt.want)
			}
			for i, w := range tt.warnings {
				if i >= len(u.warnings) || !strings.HasPrefix(u.warnings[i], w) {
					t.Errorf("warnings %q, want %q", u.warnings, tt.warnings)
				}
			}
		})
	}
}

// TestUnitWords checks systemd's word splitting and escapes.
func TestUnitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: `/bin/a b  c`, want: []string{"/bin/a", "b", "c"}},
		{in: `"a b" 'c d' e`, want: []string{"a b", "c d", "e"}},
		{in: `a\sb \x41 "q\"uote" \n`, want: []string{"a b", "A", `q"uote`, "\n"}},
		{in: `back\slash\z`, want: []string{`back lash\z`}},
		{in: `""`, want: []string{""}},
		{in: `"open`, err: true},
		{in: `"a"b`, err: true},
		{in: `\x00`, err: true},
		{in: `\xff`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := unitWords(tt.in)
			if (err != nil) != tt.err || !tt.err && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%q, %v; want %q (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestSpecifiersAndEnv checks specifier expansion and $ substitution.
func TestSpecifiersAndEnv(t *testing.T) {
	got, err := expandSpecifiers("%n %N %p %i %j %t %% x", "db-backup@main.service")
	if want := "db-backup@main.service db-backup@main db-backup main backup /run % x"; err != nil || got != want {
		t.Errorf("%q, %v; want %q", got, err, want)
	}
	if _, err := expandSpecifiers("%h", "a.service"); err == nil {
		t.Error("%h expanded")
	}
	argv, missing := substituteEnv([]string{"$A", "${A}", "x${B}y", "$$A", "$Z", "${Z}"}, map[string]string{"A": "1 2", "B": "b"})
	if want := []string{"1", "2", "1 2", "xby", "$A", ""}; !reflect.DeepEqual(argv, want) || !reflect.DeepEqual(missing, []string{"Z", "Z"}) {
		t.Errorf("%q %q", argv, missing)
	}
}

// TestParseTimespan checks systemd.time(7) spans.
func TestParseTimespan(t *testing.T) {
	tests := []struct {
		in     string
		want   time.Duration
		finite bool
		err    bool
	}{
		{"90", 90 * time.Second, true, false},
		{"1h 30min", 90 * time.Minute, true, false},
		{"2min30s", 150 * time.Second, true, false},
		{"1.5h", 90 * time.Minute, true, false},
		{"500ms", 500 * time.Millisecond, true, false},
		{"1w", 7 * 24 * time.Hour, true, false},
		{"infinity", 0, false, false},
		{"5 parsecs", 0, false, true},
		{"", 0, false, true},
		{"min", 0, false, true},
		{"99999999999999999999y", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, finite, err := parseTimespan(tt.in)
			if (err != nil) != tt.err || d != tt.want || finite != tt.finite {
				t.Errorf("%v %v %v; want %v %v (error %v)", d, finite, err, tt.want, tt.finite, tt.err)
			}
		})
	}
}

func FuzzUnitFile(f *testing.F) {
	for _, s := range []string{"[Timer]\nOnCalendar=daily\n", "[Service]\nExecStart=/bin/a \\\n# c\n b\n", "K=v\n[X\n", "[S]\nE=\"a b\" 'c' \\x41 %n $A ${B}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		u, err := parseUnit("f", src)
		if err != nil {
			return
		}
		for _, e := range u.entries {
			if words, err := unitWords(e.value); err == nil {
				substituteEnv(words, map[string]string{"A": "x"})
			}
			_, _ = expandSpecifiers(e.value, "a@b.service")
			_, _, _ = parseTimespan(e.value)
		}
	})
}
