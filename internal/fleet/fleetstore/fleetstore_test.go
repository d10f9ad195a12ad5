package fleetstore

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// newYork is Monday 2024-06-03 07:00 in New York, before web-1's 08:00 start.
var newYork = time.Date(2024, 6, 3, 11, 0, 0, 0, time.UTC)

func openStore(t *testing.T, dir string, clk clock.Clock) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), dir, sqlitestore.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newScheduler(t *testing.T, st store.Store, src fleet.Source, clk clock.Clock) *fleet.Scheduler {
	t.Helper()
	s, err := fleet.New(fleet.Config{Source: src, Clock: clk, Ledger: &Ledger{Store: st}, Events: &Events{Store: st}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func resourceEvents(t *testing.T, st store.Store, id string) []store.Event {
	t.Helper()
	ev, _, err := st.EventList(context.Background(), store.EventListParams{Resource: id, Page: store.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// The demo fleet over the real store: events land in the log as
// resource.<kind>, claims and the inventory survive a restart, and a second
// scheduler on the same store acts on nothing twice.
func TestSchedulerOverSQLite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clk := clock.NewFake(newYork)
	st := openStore(t, dir, clk)
	demo := fleet.NewDemo()
	s := newScheduler(t, st, demo, clk)
	s.Step(ctx, true)

	// The inventory is saved: eight demo machines.
	recs, err := st.ResourceInventory(ctx)
	if err != nil || len(recs) != 8 {
		t.Fatalf("saved inventory = %d records, %v; want 8", len(recs), err)
	}
	// Validation findings are in the log with key and value.
	var found bool
	for _, e := range resourceEvents(t, st, "demo-broken-1") {
		if e.Kind == "resource.validation-error" {
			got, _ := FromStore(e)
			found = got.Key == "almanac-schedule-start" && got.Value == "mon0900_tue2500" && got.Name == "broken-1"
		}
	}
	if !found {
		t.Fatalf("no validation-error event with key and value for broken-1: %+v", resourceEvents(t, st, "demo-broken-1"))
	}

	// 08:00 New York: web-2 (stopped) starts; web-1 is already running.
	clk.Set(time.Date(2024, 6, 3, 12, 0, 0, 0, time.UTC))
	s.Step(ctx, false)
	ev := resourceEvents(t, st, "demo-web-2")
	if ev[0].Kind != "resource.action-succeeded" || ev[1].Kind != "resource.action-started" {
		t.Fatalf("web-2 events after 08:00 = %v", kinds(ev))
	}
	got, ok := FromStore(ev[0])
	want := fleet.Event{Time: clk.Now(), Kind: fleet.EventActionSucceeded, Resource: "demo-web-2", Name: "web-2",
		State: fleet.Running, OldState: fleet.Stopped, Action: fleet.ActionStart, Attempt: 1,
		Transition: time.Date(2024, 6, 3, 12, 0, 0, 0, time.UTC), Message: ev[0].Message}
	got.Transition, got.Time = got.Transition.UTC(), got.Time.UTC()
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("FromStore(action-succeeded) =\n%+v\nwant\n%+v", got, want)
	}
	claims, err := st.ResourceClaims(ctx, store.ResourceClaimListParams{})
	if err != nil || len(claims) != 2 {
		t.Fatalf("claims after 08:00 = %+v, %v; want web-1 and web-2", claims, err)
	}
	cp, _ := st.ResourceCheckpoint(ctx)
	if !cp.Equal(clk.Now()) {
		t.Errorf("checkpoint = %v, want %v", cp, clk.Now())
	}

	// A restarted scheduler (same store, same instant) does nothing again,
	// and remembers web-2 is running.
	before := len(resourceEvents(t, st, "demo-web-2"))
	s2 := newScheduler(t, st, demo, clk)
	s2.Step(ctx, true)
	if n := len(resourceEvents(t, st, "demo-web-2")); n != before {
		t.Fatalf("restart at the same instant wrote %d new web-2 events: %v", n-before, kinds(resourceEvents(t, st, "demo-web-2")))
	}
	if r, ok := s2.Resource("demo-web-2"); !ok || r.State != fleet.Running {
		t.Fatalf("restarted scheduler's web-2 = %+v", r)
	}
	// Even a scheduler that has lost its checkpoint cannot act twice: the
	// claim is in the store.
	l := &Ledger{Store: st}
	if ok, err := l.ClaimTransition(ctx, "demo-web-2", time.Date(2024, 6, 3, 12, 0, 0, 0, time.UTC), fleet.ActionStart); ok || err != nil {
		t.Fatalf("claim of a claimed transition = %v, %v; want false, nil", ok, err)
	}
}

func kinds(ev []store.Event) []string {
	out := make([]string, len(ev))
	for i, e := range ev {
		out[i] = string(e.Kind)
	}
	return out
}

func TestEventConversion(t *testing.T) {
	at := time.Date(2024, 6, 4, 19, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		ev   fleet.Event
		data string
	}{
		{"tag", fleet.Event{Time: at, Kind: fleet.EventTagUpdated, Resource: "i-1", Name: "web", Key: "almanac-schedule-stop", Value: "mon1900", OldValue: "mon1800", Message: "m"},
			`{"name":"web","key":"almanac-schedule-stop","value":"mon1900","old_value":"mon1800"}`},
		{"action", fleet.Event{Time: at, Kind: fleet.EventActionRetried, Resource: "i-1", Action: fleet.ActionHibernate, Transition: at, Attempt: 2, Message: "m"},
			`{"action":"hibernate","transition":"2024-06-04T19:00:00Z","attempt":2}`},
		{"bare", fleet.Event{Time: at, Kind: fleet.EventInventoryFailed, Message: "inventory failed: boom"}, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			se := ToStore(tc.ev)
			if string(se.Kind) != "resource."+string(tc.ev.Kind) || se.Resource != tc.ev.Resource || string(se.Data) != tc.data {
				t.Fatalf("ToStore = %+v (data %s), want data %s", se, se.Data, tc.data)
			}
			back, ok := FromStore(se)
			if !ok || !reflect.DeepEqual(back, tc.ev) {
				t.Fatalf("round trip = %+v, want %+v", back, tc.ev)
			}
		})
	}
	for _, k := range []store.EventKind{store.EventRunFailed, "resource.", "resourcex"} {
		if _, ok := FromStore(store.Event{Kind: k}); ok {
			t.Errorf("FromStore(%q) accepted", k)
		}
	}
	if !strings.HasPrefix(string(ToStore(fleet.Event{Kind: fleet.EventActionFailed}).Kind), store.ResourceEventPrefix) {
		t.Error("prefix missing")
	}
}
