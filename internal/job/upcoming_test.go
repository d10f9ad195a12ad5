package job

import (
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func TestUpcoming(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("hourly", "1h"))
		b.put(spec("half", "30m"))
		b.put(spec("paused", "1m", func(s *store.JobSpec) { s.Suspend = true }))
		at := t0.Add(5 * time.Hour)
		b.put(store.JobSpec{Name: "once", At: &at, Command: []string{"true"}})
		got, err := b.ctl.Upcoming(b.ctx, t0, 6)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, f := range got {
			s = append(s, fmt.Sprintf("%s@%s", f.Job, f.Time.Sub(t0)))
		}
		want := []string{"half@30m0s", "half@1h0m0s", "hourly@1h0m0s", "half@1h30m0s", "half@2h0m0s", "hourly@2h0m0s"}
		if fmt.Sprint(s) != fmt.Sprint(want) {
			t.Errorf("Upcoming = %v, want %v", s, want)
		}
		// Ties at 14:00 are ordered by name; the one-shot is among them.
		got, err = b.ctl.Upcoming(b.ctx, t0.Add(4*time.Hour+50*time.Minute), 3)
		if err != nil || len(got) != 3 || got[0].Job != "half" || got[1].Job != "hourly" || got[2].Job != "once" || !got[2].Time.Equal(at) {
			t.Errorf("Upcoming near the one-shot = %v, %v", got, err)
		}
	})
}
