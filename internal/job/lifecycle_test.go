package job

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestWavePauseSurvivesPut: a wave pause is operator state: putting the
// same job again (a PUT, a manifest reload) keeps its waves paused, and
// the held runs say they wait for the pause.
func TestWavePauseSurvivesPut(t *testing.T) {
	runFleet(t, fleet("a", "b"), func(t *testing.T, b *bundle) {
		j := spec("j", "1h", func(s *store.JobSpec) { s.Nodes = "role=web" })
		b.put(j)
		if err := b.ctl.WavePause(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		b.put(j) // the same spec again, without wave_paused
		b.advance(time.Hour)
		runs := b.runs("j")
		if n := countStates(runs); n["pending"] != 2 {
			t.Fatalf("after a PUT of the paused job: %v; want both nodes held", n)
		}
		if got, _ := b.st.JobGet(b.ctx, "j"); !got.Spec.WavePaused {
			t.Error("the job reads as not paused after a PUT")
		}
		waits, err := b.st.RunWaiting(b.ctx, []int64{runs[0].ID, runs[1].ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if w := waits[r.ID]; w.Kind != store.WaitPaused || !strings.Contains(w.Detail, "paused by an operator") {
				t.Errorf("run on %s waits for %+v, want the pause", r.Target, w)
			}
		}
		if err := b.ctl.WaveResume(b.ctx, "j"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := countStates(b.runs("j")); n["ready"] != 2 {
			t.Errorf("after resume: %v; want both released", n)
		}
	})
}

// TestRetryWaitsForItsGate: an untargeted retry is held like any run: it
// waits out its backoff, then for its gate, and says which.
func TestRetryWaitsForItsGate(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.gates["w"] = window{10 * time.Hour, 10*time.Hour + 5*time.Second} // t0 is 09:00
		b.put(spec("j", "1h", func(s *store.JobSpec) { s.Gate, s.BackoffLimit = "w", 1 }))
		b.advance(time.Hour) // 10:00: the gate is open, the run starts
		b.exitAll("j", 1)
		retry := b.runs("j")[1]
		waitOf := func() store.Waiting {
			t.Helper()
			w, err := b.st.RunWaiting(b.ctx, []int64{retry.ID})
			if err != nil {
				t.Fatal(err)
			}
			return w[retry.ID]
		}
		if w := waitOf(); w.Kind != store.WaitBackoff || !w.Until.Equal(t0.Add(time.Hour+b.ctl.cfg.BackoffBase)) {
			t.Errorf("retry waits for %+v, want its backoff", w)
		}
		b.advance(b.ctl.cfg.BackoffBase) // the gate closed meanwhile
		if got := len(b.procs("j")); got != 1 {
			t.Fatalf("%d runs started, want the retry held for its gate", got)
		}
		if w := waitOf(); w.Kind != store.WaitGate || !w.Until.Equal(t0.Add(25*time.Hour)) {
			t.Errorf("retry waits for %+v, want gate w until it opens the next day", w)
		}
		b.advance(24*time.Hour - b.ctl.cfg.BackoffBase) // 10:00 the next day
		// The retry and the day's own instant both start at the opening, in
		// either order.
		var retried bool
		for _, p := range b.procs("j") {
			retried = retried || p.run.Attempt == 2 && p.run.ScheduledTime.Equal(retry.ScheduledTime)
		}
		if !retried {
			t.Errorf("the retry did not start when its gate opened: %d runs", len(b.procs("j")))
		}
	})
}
