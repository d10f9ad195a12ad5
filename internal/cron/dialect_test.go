package cron

import (
	"strings"
	"testing"
	"time"
)

func TestKubernetesDialect(t *testing.T) {
	from := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		expr string
		want string // the next fires, MM-DD HH:MM, or an error substring after "error: "
	}{
		{"0 0 */2 * 1", "11-29 00:00, 11-30 00:00, 12-01 00:00"},
		{"0 0 */1 * 1", "11-30 00:00, 12-07 00:00, 12-14 00:00"}, // a step of 1 keeps the star
		{"0 0 ? * 1", "11-30 00:00, 12-07 00:00, 12-14 00:00"},
		{"0 0 1,15 * 5", "12-01 00:00, 12-04 00:00, 12-11 00:00"},
		{"0 */100 * * *", "11-29 00:00, 11-30 00:00, 12-01 00:00"}, // a step past the range: the start only
		{"? ? ? ? ?", "11-28 00:01, 11-28 00:02, 11-28 00:03"},
		{"0 +9 * * *", "11-28 09:00, 11-29 09:00, 11-30 09:00"},
		{"0 0 * * 7", "error: field 5 (day of week) at column 9: value 7 out of range 0-6"},
		{"0 0 L * *", "error: not part of the Kubernetes"},
		{"0 0 * * 1#2", "error: not part of the Kubernetes"},
		{"H 0 * * *", "error: not part of the Kubernetes"},
		{"0 0 0 * * *", "error: expected exactly 5 fields"},
		{"@DAILY", "error: unknown macro"},
		{"@every 1h", "error: counts it from the CronJob's creation"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			s, err := Parse(tc.expr, WithDialect(Kubernetes))
			if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Parse = %v, want an error containing %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for at := from; len(got) < 3; {
				at = s.Next(at)
				got = append(got, at.Format("01-02 15:04"))
			}
			if strings.Join(got, ", ") != tc.want {
				t.Fatalf("fires %v, want %s", got, tc.want)
			}
		})
	}
}

// TestKubernetesDST: a fixed time in a spring-forward gap is skipped, one
// in a fall-back repeat fires twice, as robfig/cron does.
func TestKubernetesDST(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	for _, tc := range []struct {
		expr, from string
		want       []string
	}{
		{"30 2 * * *", "2026-03-07T12:00:00-05:00", []string{"2026-03-07T02:30:00-05:00", "2026-03-09T02:30:00-04:00"}},
		{"30 1 * * *", "2026-10-31T12:00:00-04:00", []string{"2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00", "2026-11-02T01:30:00-05:00"}},
	} {
		s, err := Parse(tc.expr, WithLocation(ny), WithDialect(Kubernetes))
		if err != nil {
			t.Fatal(err)
		}
		at, _ := time.Parse(time.RFC3339, tc.from)
		if tc.expr == "30 2 * * *" {
			at = at.Add(-24 * time.Hour)
		}
		var got []string
		for len(got) < len(tc.want) {
			at = s.Next(at)
			got = append(got, at.In(ny).Format(time.RFC3339))
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: %v, want %v", tc.expr, got, tc.want)
		}
	}
}

// FuzzParseKubernetes: the Kubernetes dialect never panics, refuses with a
// *ParseError, accepts only five-field or macro expressions, and a
// parsed spec fires strictly later each time.
func FuzzParseKubernetes(f *testing.F) {
	for _, s := range []string{"0 0 */2 * 1", "? ? ? ? ?", "*-5/2 * * * *", "0 +9 * * *", "@daily", "CRON_TZ=Europe/Berlin 30 2 * * *",
		"0 0 L * *", "@every 1h", "0 0 0 * * *", "1-5/0 * * * *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		s, err := Parse(expr, WithDialect(Kubernetes))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("Parse(%q) error %T is not a *ParseError", expr, err)
			}
			return
		}
		if s.hasSec || s.every != 0 || s.domSpecial || s.dowSpecial {
			t.Fatalf("Parse(%q) accepted a form the Kubernetes dialect lacks", expr)
		}
		at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < 3; i++ {
			n := s.Next(at)
			if !n.After(at) {
				t.Fatalf("%q: Next(%v) = %v", expr, at, n)
			}
			at = n
		}
	})
}
