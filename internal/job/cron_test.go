package job

import (
	"testing"
	"time"
)

func TestParseCronNext(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	tests := []struct {
		expr string
		loc  *time.Location
		from string
		want []string
	}{
		{"* * * * *", time.UTC, "2030-01-01T10:00:30Z", []string{"2030-01-01T10:01:00Z", "2030-01-01T10:02:00Z"}},
		{"*/15 9-10 * * mon-fri", time.UTC, "2030-01-04T10:50:00Z", []string{"2030-01-07T09:00:00Z", "2030-01-07T09:15:00Z"}},
		{"0 0 29 2 *", time.UTC, "2030-01-01T00:00:00Z", []string{"2032-02-29T00:00:00Z"}},
		{"0 0 13 * 5", time.UTC, "2030-01-01T00:00:00Z", []string{"2030-01-04T00:00:00Z", "2030-01-11T00:00:00Z", "2030-01-13T00:00:00Z"}},
		{"0 0 * * 7", time.UTC, "2030-01-01T00:00:00Z", []string{"2030-01-06T00:00:00Z"}},
		{"30 2 * * *", berlin, "2030-03-30T12:00:00Z", []string{"2030-03-31T01:00:00Z", "2030-04-01T00:30:00Z"}}, // 02:30 does not exist on 31 March: it runs at 03:00, the end of the gap
		{"0 2 * * *", berlin, "2030-06-01T00:00:00Z", []string{"2030-06-02T00:00:00Z"}},
		{"*/20 * * * * *", time.UTC, "2030-01-01T00:00:05Z", []string{"2030-01-01T00:00:20Z", "2030-01-01T00:00:40Z", "2030-01-01T00:01:00Z"}},
		{"@daily", time.UTC, "2030-01-01T00:00:00Z", []string{"2030-01-02T00:00:00Z"}},
		{"@every 90s", time.UTC, "2030-01-01T00:00:00Z", []string{"2030-01-01T00:01:30Z", "2030-01-01T00:03:00Z"}},
		{"0 12 1 jan,JUL ?", time.UTC, "2030-02-01T00:00:00Z", []string{"2030-07-01T12:00:00Z", "2031-01-01T12:00:00Z"}},
		{"0 3 L * *", time.UTC, "2030-02-01T00:00:00Z", []string{"2030-02-28T03:00:00Z", "2030-03-31T03:00:00Z"}},
		{"0 9 * * 1#2", time.UTC, "2030-01-01T00:00:00Z", []string{"2030-01-14T09:00:00Z"}},
		{"CRON_TZ=America/New_York 0 9 * * *", time.UTC, "2030-01-01T00:00:00Z", []string{"2030-01-01T14:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := ParseCron("job", tt.expr, tt.loc)
			if err != nil {
				t.Fatal(err)
			}
			at, _ := time.Parse(time.RFC3339, tt.from)
			for _, w := range tt.want {
				at = s.Next(at)
				if got := at.UTC().Format(time.RFC3339); got != w {
					t.Fatalf("Next = %s, want %s", got, w)
				}
			}
		})
	}
}

func TestParseCronErrors(t *testing.T) {
	for _, expr := range []string{"", "* * *", "61 * * * *", "0 0 31 2 *", "@every banana"} {
		t.Run(expr, func(t *testing.T) {
			if _, err := ParseCron("job", expr, time.UTC); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestParseCronHashesJobName checks that H fields spread by job name: two
// names give different minutes for "H * * * *" somewhere among a handful of
// names, and one name always gives the same minute.
func TestParseCronHashesJobName(t *testing.T) {
	from := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	minute := func(name string) int {
		t.Helper()
		s, err := ParseCron(name, "H * * * *", time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return s.Next(from).Minute()
	}
	if a, b := minute("backup"), minute("backup"); a != b {
		t.Fatalf("same name, different minutes %d and %d", a, b)
	}
	seen := map[int]bool{}
	for _, n := range []string{"backup", "rotate-logs", "vacuum", "report", "sync"} {
		seen[minute(n)] = true
	}
	if len(seen) < 2 {
		t.Fatalf("five job names all hashed to the same minute: %v", seen)
	}
}
