package job

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func TestOutlook(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.gates["mornings"] = window{10 * time.Hour, 10*time.Hour + 30*time.Minute}
		tomorrow10 := t0.Truncate(24 * time.Hour).Add(34 * time.Hour)
		// Every job fires on the hour; t0 is 09:00 UTC.
		b.put(spec("free", "1h"))
		b.put(spec("gated", "1h", func(s *store.JobSpec) { s.Schedule = "mornings"; s.StartingDeadlineSeconds = ptr(int64(24 * 3600)) }))
		b.put(spec("short", "1h", func(s *store.JobSpec) { s.Schedule = "mornings"; s.StartingDeadlineSeconds = ptr(int64(3600)) }))
		b.put(spec("nowhere", "1h", func(s *store.JobSpec) { s.Schedule = "nowhere" }))
		b.put(spec("nowhere-bounded", "1h", func(s *store.JobSpec) { s.Schedule = "nowhere"; s.StartingDeadlineSeconds = ptr(int64(60)) }))
		tests := []struct {
			job    string
			want   []Outlook // for the fires at 10:00 and 11:00
			reason string
		}{
			{"free", []Outlook{{State: OnTime}, {State: OnTime}}, ""},
			{"gated", []Outlook{{State: OnTime}, {State: Waits, Until: tomorrow10}}, `"mornings" is closed`},
			{"short", []Outlook{{State: OnTime}, {State: WillMiss, Until: tomorrow10}}, "only after the starting deadline"},
			{"nowhere", []Outlook{{State: Waits}, {State: Waits}}, `"nowhere" does not exist`},
			{"nowhere-bounded", []Outlook{{State: WillMiss}, {State: WillMiss}}, `"nowhere" does not exist`},
		}
		// The bubble runs the cases in turn: t.Run cannot start inside it.
		for _, tt := range tests {
			fs, err := b.ctl.JobFires(b.ctx, tt.job, t0, 2)
			if err != nil || len(fs) != 2 {
				t.Fatalf("%s: JobFires = %v, %v", tt.job, fs, err)
			}
			for i, f := range fs {
				if !f.Time.Equal(t0.Add(time.Duration(i+1) * time.Hour)) {
					t.Errorf("%s: fire %d at %v", tt.job, i, f.Time)
				}
				if f.Outlook.State != tt.want[i].State || !f.Outlook.Until.Equal(tt.want[i].Until) {
					t.Errorf("%s: fire %d at %v: outlook %+v, want %+v", tt.job, i, f.Time, f.Outlook, tt.want[i])
				}
				if f.Outlook.State != OnTime && !strings.Contains(f.Outlook.Reason, tt.reason) {
					t.Errorf("%s: fire %d reason %q, want it to say %q", tt.job, i, f.Outlook.Reason, tt.reason)
				}
			}
		}
		// Upcoming shares one compiled schedule among jobs with the same
		// expression; each fire still carries its own job's gate.
		fs, err := b.ctl.Upcoming(b.ctx, t0.Add(time.Hour), 5)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			got = append(got, f.Job+":"+f.Outlook.State)
		}
		want := "[free:on-time gated:waits nowhere:waits nowhere-bounded:will-miss short:will-miss]"
		if fmt.Sprint(got) != want {
			t.Errorf("Upcoming at 11:00 = %v, want %s", got, want)
		}
	})
}
