package job

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// CreateJobs creates every job in one call and schedules each; an invalid
// spec or a taken name creates none of them.
func TestCreateJobs(t *testing.T) {
	run(t, func(t *testing.T, b *bundle) {
		b.put(spec("taken", "1h"))
		var ve *ValidationError
		if err := b.ctl.CreateJobs(b.ctx, []store.JobSpec{spec("x", "1m"), spec("bad", "1m", func(s *store.JobSpec) { s.Command = nil })}, store.SourceManifest); !errors.As(err, &ve) {
			t.Errorf("with an invalid spec: err = %v, want a ValidationError", err)
		}
		if err := b.ctl.CreateJobs(b.ctx, []store.JobSpec{spec("y", "1m"), spec("taken", "1m")}, store.SourceManifest); !errors.Is(err, store.ErrDuplicate) {
			t.Errorf("with a taken name: err = %v, want ErrDuplicate", err)
		}
		for _, name := range []string{"x", "y"} {
			if _, err := b.st.JobGet(b.ctx, name); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s exists after a refused batch (err %v)", name, err)
			}
		}
		if err := b.ctl.CreateJobs(b.ctx, []store.JobSpec{spec("a", "1m"), spec("b", "1m")}, store.SourceManifest); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		b.advance(time.Minute)
		for _, name := range []string{"a", "b"} {
			if j, err := b.st.JobGet(b.ctx, name); err != nil || j.Source != store.SourceManifest {
				t.Errorf("%s = %+v, %v", name, j, err)
			}
			if ps := b.procs(name); len(ps) != 1 {
				t.Errorf("%s started %d processes at its first instant, want 1", name, len(ps))
			}
		}
	})
}
