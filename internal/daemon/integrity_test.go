package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore/sqlitedamage"
)

// fakeChecker is a store whose integrity the test decides.
type fakeChecker struct {
	mu      sync.Mutex
	bad     error
	checks  int
	refused bool
}

func (f *fakeChecker) IntegrityCheck(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks++
	return f.bad
}

func (f *fakeChecker) RefuseWrites(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refused = true
	return nil
}

// TestIntegrityWatch: the check runs every interval; damage found is
// reported by the health check and writes are refused.
func TestIntegrityWatch(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC))
	st := &fakeChecker{}
	w := newIntegrityWatch(st, time.Hour, clk, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { w.run(ctx); close(done) }()
	step := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for clk.PendingTimers() == 0 {
			if time.Now().After(deadline) {
				st.mu.Lock()
				defer st.mu.Unlock()
				t.Fatalf("the watch does not wait for its next check (%d checks)", st.checks)
			}
			time.Sleep(time.Millisecond)
		}
		clk.Advance(time.Hour)
	}
	// checked waits until the watch has run n checks.
	checked := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			st.mu.Lock()
			got := st.checks
			st.mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d checks, want %d", got, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	step()
	checked(1)
	step()
	checked(2)
	if r := w.reason(); r != "" {
		t.Errorf("healthy store: reason %q", r)
	}
	st.mu.Lock()
	st.bad = errors.New("row 2 missing from index sqlite_autoindex_jobs_1")
	st.mu.Unlock()
	step()
	<-done
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.checks != 3 || !st.refused {
		t.Errorf("%d checks, writes refused %v; want 3 and true", st.checks, st.refused)
	}
	if r := w.reason(); !strings.Contains(r, "damaged") || !strings.Contains(r, "sqlite_autoindex_jobs_1") {
		t.Errorf("reason %q does not report the damage", r)
	}
	if newIntegrityWatch(st, 0, clk, slog.New(slog.DiscardHandler)) != nil {
		t.Error("an interval of 0 still checks")
	}
}

// TestDamagedIndexRefusedAtStart: the daemon does not start on a database
// whose index lost a job, so that job cannot be created a second time;
// --reset sets the files aside under a timestamped name.
func TestDamagedIndexRefusedAtStart(t *testing.T) {
	data := t.TempDir()
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"job-1", "job-2"} {
		if _, err := s.JobCreate(ctx, store.JobCreateParams{Spec: store.JobSpec{Name: name, Cron: "@daily", Command: []string{"true"}}}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if err := sqlitedamage.LoseIndexEntry(filepath.Join(data, sqlitestore.FileName), "sqlite_autoindex_jobs_1", "job-2", "job-3"); err != nil {
		t.Fatal(err)
	}

	cfg, err := config(t, "--data", data, "--listen", "127.0.0.1:0", "--token", "in-process-token")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := New(ctx, cfg, slog.New(slog.DiscardHandler)); err == nil {
		d.close()
		t.Fatal("the daemon started on a damaged index")
	} else if !errors.Is(err, sqlitestore.ErrDamaged) || !strings.Contains(err.Error(), "--reset") {
		t.Fatalf("New = %v, want ErrDamaged with the recovery advice", err)
	}

	cfg, err = config(t, "--data", data, "--listen", "127.0.0.1:0", "--token", "in-process-token", "--reset")
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	d.close()
	aside, _ := filepath.Glob(filepath.Join(data, sqlitestore.FileName+".broken-*"))
	if len(aside) == 0 {
		t.Error("--reset left no set-aside copy of the damaged database")
	}
	for _, p := range aside {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("set-aside %s: %v", p, err)
		}
	}
}
