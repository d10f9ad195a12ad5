package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// countingStore counts the job reads that reach the store, and makes the
// next conflicts updates fail as if another writer had changed the job
// between a read and the write.
type countingStore struct {
	store.Store
	reads     atomic.Int64
	conflicts atomic.Int64
}

func (c *countingStore) JobGet(ctx context.Context, name string) (store.Job, error) {
	c.reads.Add(1)
	return c.Store.JobGet(ctx, name)
}

func (c *countingStore) JobUpdate(ctx context.Context, p store.JobUpdateParams) (store.Job, error) {
	if c.conflicts.Add(-1) >= 0 {
		return store.Job{}, store.ErrConflict
	}
	return c.Store.JobUpdate(ctx, p)
}

// TestPutJobReadsOnce: a PUT through the daemon's API and job controller
// reads the job from the store once and checks the spec once, whether it
// creates, replaces or leaves the job as it is; when other writers change
// the job in between, it reads again, a bounded number of times, and then
// answers 409.
func TestPutJobReadsOnce(t *testing.T) {
	ctx := t.Context()
	sq, err := sqlitestore.Open(ctx, t.TempDir(), sqlitestore.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	st := &countingStore{Store: sq}
	var checks atomic.Int64
	c, err := job.NewController(job.Config{Store: st, Clock: clock.Real{}, Parse: job.ParseCron,
		Accept: func(store.JobSpec) error { checks.Add(1); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Store: st, Controller: apiController{Controller: c}, Clock: clock.Real{}}))
	t.Cleanup(srv.Close)
	put := func(body string) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPut, srv.URL+"/api/v1/jobs/nightly", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const first, second = `{"cron":"0 3 * * *","command":["true"]}`, `{"cron":"0 4 * * *","command":["true"]}`
	tests := []struct {
		name      string
		body      string
		conflicts int64
		code      int
		reads     int64
		checks    int64
	}{
		{"create", first, 0, http.StatusCreated, 1, 1},
		{"replace", second, 0, http.StatusOK, 1, 1},
		{"unchanged", second, 0, http.StatusOK, 1, 0},
		{"another writer changed it once", first, 1, http.StatusOK, 2, 1},
		{"other writers keep changing it", second, 1000, http.StatusConflict, 5, 1}, // job.putAttempts
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st.reads.Store(0)
			st.conflicts.Store(tt.conflicts)
			checks.Store(0)
			if code := put(tt.body); code != tt.code {
				t.Errorf("PUT = %d, want %d", code, tt.code)
			}
			if n := st.reads.Load(); n != tt.reads {
				t.Errorf("%d job reads, want %d", n, tt.reads)
			}
			if n := checks.Load(); n != tt.checks {
				t.Errorf("spec checked %d times, want %d", n, tt.checks)
			}
		})
	}
}
