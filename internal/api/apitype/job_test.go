package apitype

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestCommandJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    Command
		out     string
		wantErr bool
	}{
		{in: `"echo hi"`, want: Command{Shell: "echo hi"}, out: `"echo hi"`},
		{in: `["echo","hi"]`, want: Command{Argv: []string{"echo", "hi"}}, out: `["echo","hi"]`},
		{in: ` [ ] `, want: Command{Argv: []string{}}, out: `[]`},
		{in: `null`, want: Command{}, out: `[]`},
		{in: `42`, wantErr: true},
		{in: `{"a":1}`, wantErr: true},
		{in: `[1,2]`, wantErr: true},
		{in: `"unterminated`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var c Command
			err := json.Unmarshal([]byte(tt.in), &c)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Unmarshal(%s) = %#v, want error", tt.in, c)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.in, err)
			}
			if !reflect.DeepEqual(c, tt.want) {
				t.Fatalf("Unmarshal(%s) = %#v, want %#v", tt.in, c, tt.want)
			}
			b, err := json.Marshal(c)
			if err != nil || string(b) != tt.out {
				t.Fatalf("Marshal(%#v) = %s, %v; want %s", c, b, err, tt.out)
			}
		})
	}
}

func TestCommandString(t *testing.T) {
	if got := (Command{Argv: []string{"echo", "a b"}}).String(); got != "echo a b" {
		t.Errorf("argv String = %q", got)
	}
	if got := (Command{Shell: "ls | wc"}).String(); got != "ls | wc" {
		t.Errorf("shell String = %q", got)
	}
}

func TestJobSpecRoundTrip(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	deadline := int64(60)
	keep := 0
	spec := JobSpec{
		At:                      &at,
		TimeZone:                "Europe/Berlin",
		Command:                 Command{Argv: []string{"backup", "--all"}},
		Env:                     map[string]string{"A": "1"},
		StartingDeadlineSeconds: &deadline,
		ConcurrencyPolicy:       ConcurrencyForbid,
		BackoffLimit:            2,
		Timeout:                 Duration(90 * time.Second),
		FailedJobsHistoryLimit:  &keep,
		Require:                 []string{"dump"},
	}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var got JobSpec
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, spec) {
		t.Fatalf("round trip of %s:\n got %#v\nwant %#v", b, got, spec)
	}
	var bad JobSpec
	if err := json.Unmarshal([]byte(`{"timeout":"soon"}`), &bad); err == nil {
		t.Fatal("timeout \"soon\" accepted")
	}
}

func FuzzCommandJSON(f *testing.F) {
	for _, s := range []string{`"x"`, `["a","b"]`, `null`, `[]`, `1`, `[1]`, `"\u0000"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Command
		if err := json.Unmarshal(b, &c); err != nil {
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("Marshal after Unmarshal(%q): %v", b, err)
		}
		var again Command
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-Unmarshal(%s): %v", out, err)
		}
		if again.String() != c.String() {
			t.Fatalf("round trip changed %q to %q", c.String(), again.String())
		}
	})
}
