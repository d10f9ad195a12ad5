package job

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestReportsOutcomes checks what the controller reports: a failed run, a
// success, the first success after a failure (for jobs asking for it), and
// instants missed past the starting deadline.
func TestReportsOutcomes(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		var mu sync.Mutex
		var got []string
		b.stop()
		b.cfg.Report = func(_ context.Context, o Outcome) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%s:%s:%s", o.Spec.Name, o.Kind, o.Run.State))
		}
		b.start()
		b.put(spec("flaky", "1h", func(s *store.JobSpec) { s.NotifyOn = []string{"recovered"} }))
		b.advance(time.Hour)
		b.exitAll("flaky", 1)
		b.advance(time.Hour)
		b.exitAll("flaky", 0)
		b.advance(time.Hour)
		b.exitAll("flaky", 0)
		// A job whose deadline passes while its gate stays closed misses.
		b.gates["never"] = closedGate{}
		b.put(spec("gated", "1h", func(s *store.JobSpec) { s.Gate = "never"; s.StartingDeadlineSeconds = ptr(int64(60)) }))
		b.advance(time.Hour)
		b.advance(2 * time.Minute)
		mu.Lock()
		defer mu.Unlock()
		want := []string{"flaky:failure:failed", "flaky:success:succeeded", "flaky:recovered:succeeded", "flaky:success:succeeded", "gated:missed:missed"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("reported %v\nwant      %v", got, want)
		}
	})
}

// closedGate never opens.
type closedGate struct{}

func (closedGate) Contains(time.Time) bool              { return false }
func (closedGate) NextOpen(time.Time) (time.Time, bool) { return time.Time{}, false }
