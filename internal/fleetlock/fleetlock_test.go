package fleetlock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleetlock"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/pgstore"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// Wednesday 2026-11-25 10:00 UTC.
var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// weekend is open on Saturdays and Sundays (UTC).
type weekend struct{}

func (weekend) Contains(t time.Time) bool {
	d := t.UTC().Weekday()
	return d == time.Saturday || d == time.Sunday
}

func (w weekend) NextOpen(t time.Time) (time.Time, bool) {
	for d := t.UTC().Truncate(24 * time.Hour); ; d = d.Add(24 * time.Hour) {
		if w.Contains(d) {
			return d, true
		}
	}
}

var groups = []fleetlock.Group{
	{Name: "default", Max: 1},
	{Name: "workers", Max: 2, Secret: "s3cret"},
	{Name: "db", Max: 1, Window: "weekend", Secret: "dbsecret"},
}

func newServer(t *testing.T, st fleetlock.Store, clk clock.Clock) *httptest.Server {
	t.Helper()
	_, srv := newLockServer(t, st, clk)
	return srv
}

// newLockServer is newServer that also returns the lock server itself.
func newLockServer(t *testing.T, st fleetlock.Store, clk clock.Clock) (*fleetlock.Server, *httptest.Server) {
	t.Helper()
	s := fleetlock.New(fleetlock.Config{
		Groups:  func() []fleetlock.Group { return groups },
		Windows: func(name string) (fleetlock.Window, bool) { return weekend{}, name == "weekend" },
		Store:   st, Clock: clk,
		Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
	})
	mux := http.NewServeMux()
	mux.Handle("/fleetlock/", s)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return s, srv
}

// zincati sends exactly the request Zincati's fleet_lock client sends.
func zincati(t *testing.T, base, op, id, group string, header bool) (int, map[string]string) {
	t.Helper()
	body := fmt.Sprintf(`{"client_params":{"group":%q,"id":%q}}`, group, id)
	req, err := http.NewRequest(http.MethodPost, base+"/v1/"+op, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if header {
		req.Header.Set("fleet-lock-protocol", "true")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e map[string]string
	if resp.StatusCode != http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || e["kind"] == "" || e["value"] == "" {
			t.Fatalf("error body is not {kind, value}: %v %v", e, err)
		}
	}
	return resp.StatusCode, e
}

func openSQLite(t *testing.T, clk clock.Clock) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), t.TempDir(), sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestProtocol(t *testing.T) {
	clk := clock.NewFake(t0)
	srv := newServer(t, openSQLite(t, clk), clk)
	plain, workers, db := srv.URL+"/fleetlock", srv.URL+"/fleetlock/s3cret", srv.URL+"/fleetlock/dbsecret"
	steps := []struct {
		name            string
		base, op, id, g string
		header          bool
		code            int
		kind            string
	}{
		{"first member locks", plain, "pre-reboot", "m1", "default", true, 200, ""},
		{"it asks again: re-entrant", plain, "pre-reboot", "m1", "default", true, 200, ""},
		{"group at capacity", plain, "pre-reboot", "m2", "default", true, 409, "failed_lock_semaphore_full"},
		{"missing header", plain, "pre-reboot", "m2", "default", false, 400, "missing_header"},
		{"unknown group", plain, "pre-reboot", "m2", "nope", true, 404, "unknown_group"},
		{"bad group name", plain, "pre-reboot", "m2", "a b", true, 400, "invalid_request"},
		{"first member back", plain, "steady-state", "m1", "default", true, 200, ""},
		{"released twice is fine", plain, "steady-state", "m1", "default", true, 200, ""},
		{"second member now", plain, "pre-reboot", "m2", "default", true, 200, ""},
		{"secret in the path", workers, "pre-reboot", "w1", "workers", true, 200, ""},
		{"wrong secret", srv.URL + "/fleetlock/guess", "pre-reboot", "w2", "workers", true, 403, "unauthorized"},
		{"another group's secret", db, "pre-reboot", "w2", "workers", true, 403, "unauthorized"},
		{"outside the window", db, "pre-reboot", "d1", "db", true, 409, "outside_window"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, e := zincati(t, s.base, s.op, s.id, s.g, s.header)
			if code != s.code || e["kind"] != s.kind {
				t.Fatalf("%s %s = %d %v, want %d %s", s.op, s.g, code, e, s.code, s.kind)
			}
			if s.kind == "outside_window" && !strings.Contains(e["value"], "2026-11-28T00:00:00Z") {
				t.Errorf("the answer does not name the next opening: %s", e["value"])
			}
		})
	}
	// Inside the window the slot is granted, and a holder keeps it after
	// the window closes.
	clk.Set(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	if code, e := zincati(t, db, "pre-reboot", "d1", "db", true); code != 200 {
		t.Fatalf("inside the window: %d %v", code, e)
	}
	clk.Set(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	if code, e := zincati(t, db, "pre-reboot", "d1", "db", true); code != 200 {
		t.Errorf("holder asking again after the window closed: %d %v", code, e)
	}
	if code, e := zincati(t, db, "pre-reboot", "d2", "db", true); code != 409 || e["kind"] != "outside_window" {
		t.Errorf("another member after the window closed: %d %v", code, e)
	}
}

// TestSurvivesRestart: slots are in the store, not in the server.
func TestSurvivesRestart(t *testing.T) {
	clk := clock.NewFake(t0)
	st := openSQLite(t, clk)
	first := newServer(t, st, clk)
	if code, _ := zincati(t, first.URL+"/fleetlock", "pre-reboot", "m1", "default", true); code != 200 {
		t.Fatal("lock failed")
	}
	first.Close()
	second := newServer(t, st, clk)
	if code, e := zincati(t, second.URL+"/fleetlock", "pre-reboot", "m2", "default", true); code != 409 {
		t.Errorf("after a restart another member got the held slot: %d %v", code, e)
	}
}

// TestTwoNodesOnPostgreSQL: two servers, each on its own connection pool
// to one PostgreSQL schema, answer many members at once; the group never
// has more holders than its Max.
func TestTwoNodesOnPostgreSQL(t *testing.T) {
	url := pgtest.Schema(t)
	clk := clock.NewFake(t0)
	var nodes []*httptest.Server
	var stores []*pgstore.Store
	for range 2 {
		st, err := pgstore.Open(context.Background(), url, pgstore.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
		nodes = append(nodes, newServer(t, st, clk))
	}
	var granted atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			code, _ := zincati(t, nodes[i%2].URL+"/fleetlock/s3cret", "pre-reboot", fmt.Sprintf("node-%02d", i), "workers", true)
			if code == 200 {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	if granted.Load() != 2 {
		t.Errorf("%d members got a slot of a group of 2", granted.Load())
	}
	// The first node dies: the slots it granted stay taken for the other.
	nodes[0].Close()
	stores[0].Close()
	if code, e := zincati(t, nodes[1].URL+"/fleetlock/s3cret", "pre-reboot", "late", "workers", true); code != 409 || e["kind"] != "failed_lock_semaphore_full" {
		t.Errorf("after the first node died a new member got a slot: %d %v", code, e)
	}
}

// events wraps a store to watch the events recorded.
type events struct {
	fleetlock.Store
	mu   sync.Mutex
	kind []store.EventKind
}

func (e *events) EventAppend(ctx context.Context, evs ...store.Event) error {
	e.mu.Lock()
	for _, ev := range evs {
		e.kind = append(e.kind, ev.Kind)
	}
	e.mu.Unlock()
	return e.Store.EventAppend(ctx, evs...)
}

// TestStatusAndHeldLong: the status lists holders; a slot held past
// MaxHold is marked overdue.
func TestStatusAndHeldLong(t *testing.T) {
	clk := clock.NewFake(t0)
	st := &events{Store: openSQLite(t, clk)}
	var alerts atomic.Int32
	s := fleetlock.New(fleetlock.Config{
		Groups:  func() []fleetlock.Group { return groups },
		Windows: func(name string) (fleetlock.Window, bool) { return weekend{}, name == "weekend" },
		Store:   st, Clock: clk, MaxHold: time.Hour,
		Alert: func(context.Context, string, string) { alerts.Add(1) },
	})
	ctx := context.Background()
	if _, err := st.RebootLockAcquire(ctx, store.RebootLockParams{Group: "workers", Holder: "w1", Max: 2, Now: t0}); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(2 * time.Hour))
	gs, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, g := range gs {
		switch g.Name {
		case "workers":
			found = len(g.Holders) == 1 && g.Holders[0].ID == "w1" && g.Holders[0].Overdue && g.Open
		case "db":
			if g.Open || !g.NextOpen.Equal(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("db: open %v next %v", g.Open, g.NextOpen)
			}
		}
	}
	if !found {
		t.Errorf("status %+v lacks w1 as an overdue holder of workers", gs)
	}

	// The watcher reports the slot once, however often it looks.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.WatchHolds(wctx)
	for range 3 {
		deadline := time.Now().Add(10 * time.Second)
		for clk.PendingTimers() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the watcher did not wait for its next check")
			}
			time.Sleep(time.Millisecond)
		}
		clk.Advance(fleetlock.HoldCheckInterval)
	}
	st.mu.Lock()
	n := 0
	for _, k := range st.kind {
		if k == fleetlock.EventHeldLong {
			n++
		}
	}
	st.mu.Unlock()
	if n != 1 || alerts.Load() != 1 {
		t.Errorf("%d held-long events and %d alerts, want 1 each", n, alerts.Load())
	}
}
