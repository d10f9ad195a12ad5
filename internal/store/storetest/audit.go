package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/store"
)

// auditTests cover named tokens, the actor stamped on events and the
// filters by actor and by job prefix.
var auditTests = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"Tokens", testTokens},
	{"EventActor", testEventActor},
	{"JobPrefixFilters", testJobPrefixFilters},
}

func testTokens(t *testing.T, s store.Store) {
	ctx := context.Background()
	if ts, err := s.TokenList(ctx); err != nil || len(ts) != 0 {
		t.Fatalf("TokenList of a new store = %v, %v; want none", ts, err)
	}
	exp := base.Add(24 * time.Hour)
	alice := store.Token{Name: "alice", Hash: "h-alice", Role: "operator", JobPrefix: "web-", CreatedAt: base, CreatedBy: "admin", ExpiresAt: exp}
	bob := store.Token{Name: "bob", Hash: "h-bob", Role: "viewer", CreatedAt: base}
	actx := audit.With(ctx, audit.Actor{Name: "admin", Via: audit.ViaCLI, Remote: "10.0.0.7"})
	for _, tok := range []store.Token{bob, alice} {
		if err := s.TokenCreate(actx, store.TokenCreateParams{Token: tok,
			Events: []store.Event{{Kind: "token.created", Message: "token " + tok.Name + " created"}}}); err != nil {
			t.Fatalf("TokenCreate(%s): %v", tok.Name, err)
		}
	}
	for _, dup := range []store.Token{{Name: "alice", Hash: "other", Role: "viewer"}, {Name: "carol", Hash: "h-bob", Role: "viewer"}} {
		if err := s.TokenCreate(ctx, store.TokenCreateParams{Token: dup}); !errors.Is(err, store.ErrDuplicate) {
			t.Errorf("TokenCreate(%s, %s) = %v; want ErrDuplicate", dup.Name, dup.Hash, err)
		}
	}
	got, err := s.TokenByHash(ctx, "h-alice")
	if err != nil {
		t.Fatalf("TokenByHash: %v", err)
	}
	if got.Name != "alice" || got.Role != "operator" || got.JobPrefix != "web-" || got.CreatedBy != "admin" ||
		!got.ExpiresAt.Equal(exp) || !got.CreatedAt.Equal(base) {
		t.Errorf("TokenByHash = %+v; want alice as created", got)
	}
	if _, err := s.TokenByHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TokenByHash(unknown) = %v; want ErrNotFound", err)
	}
	list, err := s.TokenList(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "alice" || list[1].Name != "bob" || !list[1].ExpiresAt.IsZero() {
		t.Fatalf("TokenList = %+v, %v; want alice then bob (no expiry)", list, err)
	}
	if err := s.TokenDelete(actx, store.TokenDeleteParams{Name: "alice",
		Events: []store.Event{{Kind: "token.revoked", Message: "token alice revoked"}}}); err != nil {
		t.Fatalf("TokenDelete: %v", err)
	}
	if _, err := s.TokenByHash(ctx, "h-alice"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TokenByHash after revocation = %v; want ErrNotFound", err)
	}
	if err := s.TokenDelete(ctx, store.TokenDeleteParams{Name: "alice"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("TokenDelete twice = %v; want ErrNotFound", err)
	}
	evs, _, err := s.EventList(ctx, store.EventListParams{Actor: "admin"})
	if err != nil || len(evs) != 3 || evs[0].Kind != "token.revoked" || evs[0].Via != audit.ViaCLI || evs[0].Remote != "10.0.0.7" {
		t.Errorf("events by admin = %+v, %v; want 2 creations and 1 revocation stamped (cli, 10.0.0.7)", evs, err)
	}
}

// testEventActor: every way of writing events stamps the context's actor,
// unless the event names its own, and EventList filters by actor.
func testEventActor(t *testing.T, s store.Store) {
	ctx := context.Background()
	actx := audit.With(ctx, audit.Actor{Name: "alice", Via: audit.ViaUI, Remote: "10.0.0.7"})
	if _, err := s.JobCreate(actx, store.JobCreateParams{Spec: store.JobSpec{Name: "j", Cron: "* * * * *", Command: []string{"true"}},
		Source: store.SourceAPI, Now: base, Events: []store.Event{{Kind: store.EventJobCreated, Message: "created"}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.EventAppend(actx, store.Event{Kind: store.EventJobSuspended, Job: "j", Message: "suspended"},
		store.Event{Kind: store.EventJobResumed, Job: "j", Message: "own", Actor: "manifest:/etc/a.pp", Via: audit.ViaReload}); err != nil {
		t.Fatal(err)
	}
	res, err := s.RunInsertBatch(actx, store.RunInsertBatchParams{Now: base, Items: []store.RunInsertParams{{
		Run: store.Run{Job: "j", ScheduledTime: base, Reason: store.ReasonManual}, Events: []store.Event{{Kind: store.EventRunScheduled, Message: "batch"}}}}})
	if err != nil || res[0].Err != nil {
		t.Fatalf("RunInsertBatch: %v %+v", err, res)
	}
	if _, err := s.RunFinishBatch(actx, store.RunFinishBatchParams{Now: base, Items: []store.RunFinishParams{{ID: res[0].Run.ID,
		State: store.RunKilled, Events: []store.Event{{Kind: store.EventRunKilled, Message: "killed"}}}}}); err != nil {
		t.Fatalf("RunFinishBatch: %v", err)
	}
	if err := s.EventAppend(ctx, store.Event{Kind: store.EventRunMissed, Job: "j", Message: "daemon"}); err != nil {
		t.Fatal(err)
	}
	all, _, err := s.EventList(ctx, store.EventListParams{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]audit.Actor{
		"created": {Name: "alice", Via: audit.ViaUI, Remote: "10.0.0.7"}, "suspended": {Name: "alice", Via: audit.ViaUI, Remote: "10.0.0.7"},
		"own": {Name: "manifest:/etc/a.pp", Via: audit.ViaReload}, "batch": {Name: "alice", Via: audit.ViaUI, Remote: "10.0.0.7"},
		"killed": {Name: "alice", Via: audit.ViaUI, Remote: "10.0.0.7"}, "daemon": {},
	}
	for _, e := range all {
		w, ok := want[e.Message]
		if !ok {
			continue
		}
		delete(want, e.Message)
		if got := (audit.Actor{Name: e.Actor, Via: e.Via, Remote: e.Remote}); got != w {
			t.Errorf("event %q actor = %+v; want %+v", e.Message, got, w)
		}
	}
	if len(want) != 0 {
		t.Errorf("events not listed: %v", want)
	}
	byAlice, _, err := s.EventList(ctx, store.EventListParams{Actor: "alice"})
	if err != nil || len(byAlice) != 4 {
		t.Errorf("EventList(Actor alice) = %d events, %v; want 4", len(byAlice), err)
	}
	for _, e := range byAlice {
		if e.Actor != "alice" {
			t.Errorf("EventList(Actor alice) listed %+v", e)
		}
	}
}

// testJobPrefixFilters: jobs, runs and events can be confined to the jobs
// whose names start with a prefix (a token's --jobs), which is matched
// literally (no LIKE wildcards).
func testJobPrefixFilters(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, n := range []string{"web-a", "web-b", "web_x", "db-a", "wéb-a"} {
		createJob(t, s, n)
		insertRun(t, s, n, base, 1)
		if err := s.EventAppend(ctx, store.Event{Kind: store.EventJobSuspended, Job: n, Message: n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EventAppend(ctx, store.Event{Kind: "node.labels", Resource: "node/web-a", Message: "node"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix string
		want   int
	}{{"web-", 2}, {"web_", 1}, {"wéb-", 1}, {"w", 4}, {"zzz", 0}} {
		jobs, err := s.JobList(ctx, store.JobListParams{NamePrefix: tc.prefix})
		if err != nil || len(jobs) != tc.want {
			t.Errorf("JobList(NamePrefix %q) = %d jobs, %v; want %d", tc.prefix, len(jobs), err, tc.want)
		}
		runs, _, err := s.RunList(ctx, store.RunListParams{JobPrefix: tc.prefix})
		if err != nil || len(runs) != tc.want {
			t.Errorf("RunList(JobPrefix %q) = %d runs, %v; want %d", tc.prefix, len(runs), err, tc.want)
		}
		evs, _, err := s.EventList(ctx, store.EventListParams{JobPrefix: tc.prefix, Kinds: []store.EventKind{store.EventJobSuspended, "node.labels"}})
		if err != nil || len(evs) != tc.want {
			t.Errorf("EventList(JobPrefix %q) = %d events, %v; want %d", tc.prefix, len(evs), err, tc.want)
		}
	}
}
