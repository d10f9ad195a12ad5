package job

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/pgstore"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// t0 is a whole hour; "every" schedules fire on multiples of their period.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// every fires at every multiple of its period since the Unix epoch; it
// implements Schedule and Counter, like a cron spec.
type every time.Duration

func (e every) Next(t time.Time) time.Time {
	d := time.Duration(e)
	return t.Truncate(d).Add(d)
}

func (e every) Count(from, to time.Time) int64 {
	if !to.After(from) {
		return 0
	}
	d := int64(e)
	return floorDiv(to.UnixNano(), d) - floorDiv(from.UnixNano(), d)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// enumOnly hides Count, forcing the enumeration path.
type enumOnly struct{ s Schedule }

func (e enumOnly) Next(t time.Time) time.Time { return e.s.Next(t) }

// parseEvery reads a Go duration as an every schedule ("1m").
func parseEvery(_, expr string, _ *time.Location) (Schedule, error) {
	d, err := time.ParseDuration(expr)
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("bad test schedule %q", expr)
	}
	return every(d), nil
}

// fakeExec records started runs; tests end them by hand.
type fakeExec struct {
	mu    sync.Mutex
	procs []*fakeProc
	fail  error // Start returns it when set
}

type fakeProc struct {
	run        store.Run
	spec       store.JobSpec
	done       chan struct{}
	once       sync.Once
	res        Result
	mu         sync.Mutex
	terms      int
	kills      int
	ignoreTerm bool
}

func (f *fakeExec) Attach(context.Context, store.Run) (Process, error) {
	return nil, ErrNotAttachable
}

func (f *fakeExec) Start(_ context.Context, r store.Run, spec store.JobSpec) (Process, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	p := &fakeProc{run: r, spec: spec, done: make(chan struct{})}
	f.procs = append(f.procs, p)
	return p, nil
}

func (f *fakeExec) started() []*fakeProc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*fakeProc(nil), f.procs...)
}

func (p *fakeProc) Done() <-chan struct{} { return p.done }
func (p *fakeProc) Result() Result        { return p.res }
func (p *fakeProc) Terminate() {
	p.mu.Lock()
	p.terms++
	ignore := p.ignoreTerm
	p.mu.Unlock()
	if !ignore {
		p.end(Result{Err: errors.New("signal: terminated")})
	}
}
func (p *fakeProc) Kill() {
	p.mu.Lock()
	p.kills++
	p.mu.Unlock()
	p.end(Result{Err: errors.New("signal: killed")})
}
func (p *fakeProc) exit(code int) {
	p.end(Result{ExitCode: &code, Output: []byte(fmt.Sprintf("exit %d\n", code))})
}
func (p *fakeProc) end(r Result) {
	p.once.Do(func() {
		p.res = r
		close(p.done)
	})
}
func (p *fakeProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// backend is a store the controller tests run on: open returns a new
// handle on the database at where (a directory or a URL), which prepare
// makes outside the test's synctest bubble.
type backend struct {
	name    string
	prepare func(t *testing.T) string
	open    func(ctx context.Context, where string, clk clock.Clock) (store.Store, error)
}

// backends are every store the controller runs on: each controller test
// runs on all of them, so a store that disagrees with the others fails a
// scheduling test, not only the conformance suite. PostgreSQL is skipped
// (or, under scripts/test, fails) when no server is reachable.
var backends = []backend{
	{"sqlite", func(t *testing.T) string { return t.TempDir() },
		func(ctx context.Context, dir string, clk clock.Clock) (store.Store, error) {
			return sqlitestore.Open(ctx, dir, sqlitestore.WithClock(clk))
		}},
	{"postgres", func(t *testing.T) string { return pgtest.Schema(t) },
		func(ctx context.Context, url string, clk clock.Clock) (store.Store, error) {
			st, err := pgstore.Open(ctx, url, pgstore.WithClock(clk))
			if err != nil {
				return nil, err
			}
			// A new database has no node of an older release, so the
			// leader of a real cluster contracts it at once; fan-out
			// needs the contracted run key.
			if _, err := st.Contract(ctx, time.Minute); err != nil {
				st.Close()
				return nil, err
			}
			return st, nil
		}},
}

// bundle is one controller under test on a real store and a fake clock,
// inside a synctest bubble so synctest.Wait means "the controller has
// done everything it can do at this instant".
type bundle struct {
	t   *testing.T
	ctx context.Context
	clk *clock.Fake
	be  backend
	dir string      // where the store's database is (backend.open)
	st  store.Store // the test's handle on the store
	// own is the running controller's handle on the same database, when
	// cfg.Store leaves the choice to start (nil): a crash closes it.
	own    store.Store
	ex     *fakeExec
	gates  map[string]Gate
	ctl    *Controller
	cancel context.CancelFunc
	done   chan error
	cfg    Config
}

// run runs fn in a synctest bubble with a started bundle.
func run(t *testing.T, fn func(t *testing.T, b *bundle)) {
	t.Helper()
	runWith(t, nil, fn)
}

// runWith is run with the controller's configuration changed by mod, once
// on every backend.
func runWith(t *testing.T, mod func(*Config), fn func(t *testing.T, b *bundle)) {
	t.Helper()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			runOn(t, be, mod, fn)
		})
	}
}

// runOn is runWith on one backend.
func runOn(t *testing.T, be backend, mod func(*Config), fn func(t *testing.T, b *bundle)) {
	t.Helper()
	dir := be.prepare(t)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := clock.NewFake(t0)
		st, err := be.open(ctx, dir, clk)
		if err != nil {
			t.Fatal(err)
		}
		b := &bundle{t: t, ctx: ctx, clk: clk, be: be, dir: dir, st: st, ex: &fakeExec{}, gates: map[string]Gate{}}
		b.cfg = Config{Clock: clk, Parse: parseEvery, Executor: b.ex,
			Gates: func(name string) (Gate, bool) { g, ok := b.gates[name]; return g, ok }}
		if mod != nil {
			mod(&b.cfg)
		}
		b.start()
		defer func() {
			b.stop()
			b.closeOwn() // a test may have stopped the controller itself
			st.Close()
		}()
		fn(t, b)
	})
}

// start starts a controller, on a database handle of its own unless the
// test chose cfg.Store.
func (b *bundle) start() {
	b.t.Helper()
	cfg := b.cfg
	if cfg.Store == nil {
		own, err := b.be.open(b.ctx, b.dir, b.clk)
		if err != nil {
			b.t.Fatal(err)
		}
		cfg.Store, b.own = own, own
	}
	ctl, err := NewController(cfg)
	if err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.ctx)
	b.ctl, b.cancel, b.done = ctl, cancel, make(chan error, 1)
	go func() { b.done <- ctl.Run(ctx) }()
	synctest.Wait()
}

// stop ends every fake process and stops the controller gracefully.
func (b *bundle) stop() {
	if b.cancel == nil {
		return
	}
	for _, p := range b.ex.started() {
		p.exit(0)
	}
	b.cancel()
	if err := <-b.done; err != nil {
		b.t.Errorf("Run: %v", err)
	}
	b.cancel = nil
	b.closeOwn()
}

func (b *bundle) closeOwn() {
	if b.own != nil {
		b.own.Close()
		b.own = nil
	}
}

// crash stops the controller as a dying process does: its database
// handle goes first, so nothing it does afterwards (shutting down,
// recording the ends of its runs) reaches the store, which keeps whatever
// was running as running.
func (b *bundle) crash() {
	b.t.Helper()
	if b.own == nil {
		b.t.Fatal("crash needs the controller on its own database handle (cfg.Store unset)")
	}
	b.closeOwn()
	b.cancel()
	b.cancel = nil
	for _, p := range b.ex.started() {
		p.exit(0) // its processes vanish with it; nobody records them
	}
	<-b.done
	synctest.Wait()
	b.ex = &fakeExec{}
	b.cfg.Executor = b.ex
}

func (b *bundle) advance(d time.Duration) {
	b.clk.Advance(d)
	synctest.Wait()
}

// put creates or updates a job and lets the controller react.
func (b *bundle) put(spec store.JobSpec) {
	b.t.Helper()
	if _, _, err := b.ctl.PutJob(b.ctx, spec, store.SourceAPI); err != nil {
		b.t.Fatalf("PutJob(%s): %v", spec.Name, err)
	}
	synctest.Wait()
}

func (b *bundle) runs(job string) []store.Run {
	b.t.Helper()
	runs, _, err := b.st.RunList(b.ctx, store.RunListParams{Job: job, WithOutput: true, Page: store.Page{Limit: 1000}})
	if err != nil {
		b.t.Fatal(err)
	}
	// oldest first reads better in tests
	for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
		runs[i], runs[j] = runs[j], runs[i]
	}
	return runs
}

func (b *bundle) events(job string, kinds ...store.EventKind) []store.Event {
	b.t.Helper()
	ev, _, err := b.st.EventList(b.ctx, store.EventListParams{Job: job, Kinds: kinds, Page: store.Page{Limit: 1000}})
	if err != nil {
		b.t.Fatal(err)
	}
	return ev
}

// procs returns the fake processes started for job, in start order.
func (b *bundle) procs(job string) []*fakeProc {
	var out []*fakeProc
	for _, p := range b.ex.started() {
		if p.run.Job == job {
			out = append(out, p)
		}
	}
	return out
}

// exit ends the job's processes that are still running with code.
func (b *bundle) exitAll(job string, code int) {
	for _, p := range b.procs(job) {
		if !p.exited() {
			p.exit(code)
		}
	}
	synctest.Wait()
}

func states(runs []store.Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprintf("%s@%s#%d:%s", r.Reason, r.ScheduledTime.Format("15:04:05"), r.Attempt, r.State))
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func spec(name, every string, mods ...func(*store.JobSpec)) store.JobSpec {
	s := store.JobSpec{Name: name, Cron: every, Command: []string{"true"}}
	for _, m := range mods {
		m(&s)
	}
	return s
}

func contextWithCancel(b *bundle) (context.Context, context.CancelFunc) {
	return context.WithCancel(b.ctx)
}
