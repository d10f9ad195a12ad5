package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// resourceTests are the managed-resource cases of the suite.
var resourceTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"ResourceClaimUnique", testResourceClaimUnique},
	{"ResourceClaimConcurrent", testResourceClaimConcurrent},
	{"ResourceCheckpoint", testResourceCheckpoint},
	{"ResourceInventory", testResourceInventory},
	{"ResourceEvents", testResourceEvents},
}

func claim(id string, at time.Time, action string) store.ResourceClaimParams {
	return store.ResourceClaimParams{Claim: store.ResourceClaim{ResourceID: id, At: at, Action: action, ClaimedAt: at.Add(time.Second)}}
}

func testResourceClaimUnique(t *testing.T, s store.Store) {
	ctx := context.Background()
	at := base.Add(9 * time.Hour)
	p := claim("vm-1", at, "start")
	p.Events = []store.Event{{Kind: "resource.action-started", Resource: "vm-1", Message: "start"}}
	if err := s.ResourceClaimTransition(ctx, p); err != nil {
		t.Fatalf("first claim: %v", err)
	}
	// The same key again, even with another action, is a duplicate, and its
	// events are not written.
	again := claim("vm-1", at, "stop")
	again.Events = []store.Event{{Kind: "resource.action-started", Resource: "vm-1", Message: "again"}}
	if err := s.ResourceClaimTransition(ctx, again); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("second claim of the same transition: err = %v, want ErrDuplicate", err)
	}
	for _, other := range []store.ResourceClaimParams{claim("vm-1", at.Add(time.Minute), "stop"), claim("vm-2", at, "start")} {
		if err := s.ResourceClaimTransition(ctx, other); err != nil {
			t.Fatalf("claim %+v: %v", other.Claim, err)
		}
	}
	if err := s.ResourceClaimTransition(ctx, claim("", at, "start")); err == nil || errors.Is(err, store.ErrDuplicate) {
		t.Errorf("claim without a resource id: err = %v, want a plain error", err)
	}
	got, err := s.ResourceClaims(ctx, store.ResourceClaimListParams{ResourceID: "vm-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Action != "stop" || !got[0].At.Equal(at.Add(time.Minute)) ||
		got[1].Action != "start" || !got[1].At.Equal(at) || !got[1].ClaimedAt.Equal(at.Add(time.Second)) {
		t.Errorf("ResourceClaims(vm-1) = %+v, want stop at %v then start at %v", got, at.Add(time.Minute), at)
	}
	all, err := s.ResourceClaims(ctx, store.ResourceClaimListParams{})
	if err != nil || len(all) != 3 {
		t.Errorf("ResourceClaims() = %d claims, %v; want 3", len(all), err)
	}
	events, _, err := s.EventList(ctx, store.EventListParams{Resource: "vm-1"})
	if err != nil || len(events) != 1 || events[0].Message != "start" {
		t.Errorf("events after a claim and a duplicate = %+v, %v; want only the first claim's", events, err)
	}
}

func testResourceClaimConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	at := base.Add(19 * time.Hour)
	const n = 16
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, dup := 0, 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.ResourceClaimTransition(ctx, claim("vm-1", at, "stop"))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, store.ErrDuplicate):
				dup++
			default:
				t.Errorf("concurrent claim: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || dup != n-1 {
		t.Fatalf("%d concurrent claims of one transition: %d won, %d duplicates; want 1 and %d", n, won, dup, n-1)
	}
}

func testResourceCheckpoint(t *testing.T, s store.Store) {
	ctx := context.Background()
	cp, err := s.ResourceCheckpoint(ctx)
	if err != nil || !cp.IsZero() {
		t.Fatalf("checkpoint of a new store = %v, %v; want zero", cp, err)
	}
	for _, at := range []time.Time{base.Add(90 * time.Second), base.Add(time.Hour + 123*time.Microsecond), base.Add(time.Minute)} {
		if err := s.ResourceSetCheckpoint(ctx, store.ResourceCheckpointParams{At: at}); err != nil {
			t.Fatalf("set checkpoint %v: %v", at, err)
		}
		cp, err := s.ResourceCheckpoint(ctx)
		if err != nil || !cp.Equal(at) {
			t.Fatalf("checkpoint = %v, %v; want %v (stored as given)", cp, err, at)
		}
	}
	if err := s.ResourceSetCheckpoint(ctx, store.ResourceCheckpointParams{}); err == nil {
		t.Error("setting a zero checkpoint succeeded")
	}
}

func testResourceInventory(t *testing.T, s store.Store) {
	ctx := context.Background()
	inv, err := s.ResourceInventory(ctx)
	if err != nil || len(inv) != 0 {
		t.Fatalf("inventory of a new store = %+v, %v; want empty", inv, err)
	}
	// Data comes back byte for byte, whatever its spacing and key order.
	recs := []store.ResourceRecord{
		{ID: "vm-b", Data: json.RawMessage(`{"state":"running", "tags":{"z":"1","a":"é"}}`)},
		{ID: "vm-a", Data: json.RawMessage(`{"state":"stopped"}`), UpdatedAt: base.Add(time.Minute)},
		{ID: "vm-c", Data: json.RawMessage(`{}`)},
	}
	if err := s.ResourceSaveInventory(ctx, store.ResourceInventoryParams{Records: recs, Now: base,
		Events: []store.Event{{Kind: "resource.resource-added", Resource: "vm-a", Message: "added"}}}); err != nil {
		t.Fatalf("save inventory: %v", err)
	}
	inv, err = s.ResourceInventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"vm-a": `{"state":"stopped"}`, "vm-b": `{"state":"running", "tags":{"z":"1","a":"é"}}`, "vm-c": `{}`}
	checkInventory(t, inv, want)
	if !inv[0].UpdatedAt.Equal(base.Add(time.Minute)) || !inv[1].UpdatedAt.Equal(base) {
		t.Errorf("updated_at = %v, %v; want the record's own time, else Now", inv[0].UpdatedAt, inv[1].UpdatedAt)
	}
	if ev, _, err := s.EventList(ctx, store.EventListParams{Resource: "vm-a"}); err != nil || len(ev) != 1 {
		t.Errorf("events written with the inventory = %+v, %v", ev, err)
	}

	// Saving again replaces: vm-b is gone, vm-d is new.
	recs = []store.ResourceRecord{{ID: "vm-a", Data: json.RawMessage(`{"state":"running"}`)}, {ID: "vm-d", Data: json.RawMessage(`[1,2]`)}}
	if err := s.ResourceSaveInventory(ctx, store.ResourceInventoryParams{Records: recs, Now: base.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	inv, _ = s.ResourceInventory(ctx)
	checkInventory(t, inv, map[string]string{"vm-a": `{"state":"running"}`, "vm-d": `[1,2]`})

	// A listing with a duplicate id or bad JSON is refused as a whole.
	for _, bad := range [][]store.ResourceRecord{
		{{ID: "vm-x", Data: json.RawMessage(`{}`)}, {ID: "vm-x", Data: json.RawMessage(`{}`)}},
		{{ID: "vm-y", Data: json.RawMessage(`{`)}},
		{{ID: "", Data: json.RawMessage(`{}`)}},
	} {
		if err := s.ResourceSaveInventory(ctx, store.ResourceInventoryParams{Records: bad}); err == nil {
			t.Errorf("save inventory %+v succeeded", bad)
		}
	}
	inv, _ = s.ResourceInventory(ctx)
	checkInventory(t, inv, map[string]string{"vm-a": `{"state":"running"}`, "vm-d": `[1,2]`})

	// ResourceSave updates one record or adds it.
	if err := s.ResourceSave(ctx, store.ResourceSaveParams{Record: store.ResourceRecord{ID: "vm-a", Data: json.RawMessage(`{"state":"hibernated"}`)}, Now: base.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceSave(ctx, store.ResourceSaveParams{Record: store.ResourceRecord{ID: "vm-e", Data: json.RawMessage(`null`)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.ResourceSave(ctx, store.ResourceSaveParams{Record: store.ResourceRecord{ID: "vm-f", Data: json.RawMessage(`nope`)}}); err == nil {
		t.Error("saving invalid JSON succeeded")
	}
	inv, _ = s.ResourceInventory(ctx)
	checkInventory(t, inv, map[string]string{"vm-a": `{"state":"hibernated"}`, "vm-d": `[1,2]`, "vm-e": `null`})
	if !inv[0].UpdatedAt.Equal(base.Add(2 * time.Hour)) {
		t.Errorf("vm-a updated_at = %v, want %v", inv[0].UpdatedAt, base.Add(2*time.Hour))
	}
}

// checkInventory compares an inventory (which must be sorted by id) with
// id -> exact JSON text.
func checkInventory(t *testing.T, inv []store.ResourceRecord, want map[string]string) {
	t.Helper()
	if len(inv) != len(want) {
		t.Fatalf("inventory has %d records, want %d: %+v", len(inv), len(want), inv)
	}
	for i, r := range inv {
		if i > 0 && inv[i-1].ID >= r.ID {
			t.Errorf("inventory not sorted by id: %q before %q", inv[i-1].ID, r.ID)
		}
		if w, ok := want[r.ID]; !ok || string(r.Data) != w {
			t.Errorf("record %s = %s, want %s", r.ID, r.Data, w)
		}
	}
}

func testResourceEvents(t *testing.T, s store.Store) {
	ctx := context.Background()
	createJob(t, s, "j")
	if err := s.EventAppend(ctx,
		store.Event{Time: base, Kind: "resource.tag-added", Resource: "vm-1", Message: "tag", Data: json.RawMessage(`{"key":"almanac-schedule-stop","value":"mon1900"}`)},
		store.Event{Time: base, Kind: "resource.action-started", Resource: "vm-2", Message: "start"},
		store.Event{Time: base, Kind: store.EventJobCreated, Job: "j", Message: "job"},
		store.Event{Time: base, Kind: "resource.action-succeeded", Resource: "vm-1", Message: "done"},
	); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.EventList(ctx, store.EventListParams{Resource: "vm-1"})
	if err != nil || len(got) != 2 || got[0].Message != "done" || got[1].Message != "tag" {
		t.Fatalf("events of vm-1 = %+v, %v; want done, tag", got, err)
	}
	var data map[string]string
	if err := json.Unmarshal(got[1].Data, &data); err != nil || data["key"] != "almanac-schedule-stop" {
		t.Errorf("tag event data = %s (%v)", got[1].Data, err)
	}
	got, _, err = s.EventList(ctx, store.EventListParams{Resource: "vm-1", Kinds: []store.EventKind{"resource.tag-added"}})
	if err != nil || len(got) != 1 || got[0].Message != "tag" {
		t.Errorf("tag-added events of vm-1 = %+v, %v", got, err)
	}
	got, _, err = s.EventList(ctx, store.EventListParams{Resource: "vm-9"})
	if err != nil || len(got) != 0 {
		t.Errorf("events of an unknown resource = %+v, %v; want none", got, err)
	}
}
