package job

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// TestDecide covers every outcome of the lifecycle's one decision, for
// untargeted runs, a wave's nodes and retries.
func TestDecide(t *testing.T) {
	at := t0
	now := at.Add(10 * time.Second)
	opensAt := at.Add(time.Hour)
	closed := func(name string) gateFact {
		return gateFact{name: name, what: "schedule gate " + name, exists: true, next: opensAt, opens: true}
	}
	open := func(name string) gateFact {
		return gateFact{name: name, what: "gate " + name, exists: true, open: true}
	}
	window := func(g gateFact) gateFact { g.what = "window of node n1"; return g }
	// base is an untargeted first attempt with nothing in its way.
	base := heldFacts{run: store.Run{ID: 7, Job: "j", ScheduledTime: at, Attempt: 1, Reason: store.ReasonSchedule},
		now: now, nodeUp: true, free: -1, catchUp: CatchUpLatest}
	node := func(f heldFacts) heldFacts { f.run.Target = "n1"; return f }
	retry := func(f heldFacts) heldFacts {
		f.run.Reason, f.run.Attempt = store.ReasonRetry, 2
		return f
	}
	withDeadline := func(f heldFacts, d time.Duration) heldFacts {
		f.deadline, f.hasDeadline = at.Add(d), true
		return f
	}
	with := func(f heldFacts, mod func(*heldFacts)) heldFacts { mod(&f); return f }

	type want struct {
		verdict verdict
		kind    store.WaitKind
		until   time.Time
		recheck time.Time
		why     string // a substring of the miss reason or the wait detail
		skip    bool
		replace bool
	}
	release := want{verdict: verdictRelease}
	tests := []struct {
		name string
		f    heldFacts
		want want
	}{
		{"nothing in the way", base, release},
		{"a node with nothing in the way", node(base), release},
		{"manual ignores everything", with(base, func(f *heldFacts) {
			f.run.Reason, f.suspended, f.gate, f.paused = store.ReasonManual, true, closed("g"), true
		}), release},
		{"suspended waits", with(base, func(f *heldFacts) { f.suspended = true }),
			want{verdict: verdictWait, kind: store.WaitPaused, why: "suspended"}},
		{"suspended waits until its deadline", with(withDeadline(base, time.Minute), func(f *heldFacts) { f.suspended = true }),
			want{verdict: verdictWait, kind: store.WaitPaused, recheck: at.Add(time.Minute + time.Nanosecond)}},
		{"stopping waits", with(base, func(f *heldFacts) { f.stopping = true }),
			want{verdict: verdictWait, kind: store.WaitPaused, why: "shutting down"}},
		{"suspended past its deadline is missed", with(withDeadline(base, time.Second), func(f *heldFacts) { f.suspended = true }),
			want{verdict: verdictMiss, why: "while the job was suspended"}},
		{"a stopped wave skips", with(node(base), func(f *heldFacts) { f.failed, f.maxFailures = 2, 2 }),
			want{verdict: verdictMiss, skip: true, why: "wave stopped after 2 failed node(s)"}},
		{"failures under the limit go on", with(node(base), func(f *heldFacts) { f.failed, f.maxFailures = 1, 2 }), release},
		{"a retry waits out its backoff", with(retry(base), func(f *heldFacts) { f.backoff = now.Add(20 * time.Second) }),
			want{verdict: verdictWait, kind: store.WaitBackoff, until: now.Add(20 * time.Second), why: "attempt 2"}},
		{"a retry after its backoff waits for its gate", with(retry(base), func(f *heldFacts) { f.backoff, f.gate = now, closed("g") }),
			want{verdict: verdictWait, kind: store.WaitGate, until: opensAt, why: "is closed"}},
		{"a retry is not bound by the deadline", with(retry(withDeadline(base, time.Second)), func(f *heldFacts) { f.gate = closed("g") }),
			want{verdict: verdictWait, kind: store.WaitGate, until: opensAt}},
		{"closed gate waits until it opens", with(base, func(f *heldFacts) { f.gate = closed("g") }),
			want{verdict: verdictWait, kind: store.WaitGate, until: opensAt}},
		{"open gate goes", with(base, func(f *heldFacts) { f.gate = open("g") }), release},
		{"a gate opening after the deadline misses", with(withDeadline(base, time.Minute), func(f *heldFacts) { f.gate = closed("g") }),
			want{verdict: verdictMiss, why: "does not open before the starting deadline"}},
		{"a gate that never opens misses", with(base, func(f *heldFacts) { f.gate = gateFact{name: "g", what: "gate g", exists: true} }),
			want{verdict: verdictMiss, why: "does not open before"}},
		{"a missing gate waits", with(base, func(f *heldFacts) { f.gate = gateFact{name: "g", what: "gate g"} }),
			want{verdict: verdictWait, kind: store.WaitGate, why: "does not exist"}},
		{"a missing gate waits until the deadline", with(withDeadline(base, time.Minute), func(f *heldFacts) { f.gate = gateFact{name: "g", what: "gate g"} }),
			want{verdict: verdictWait, kind: store.WaitGate, recheck: at.Add(time.Minute + time.Nanosecond)}},
		{"a missing gate past the deadline misses", with(withDeadline(base, time.Second), func(f *heldFacts) { f.gate = gateFact{name: "g", what: "gate g"} }),
			want{verdict: verdictMiss, why: "gate g does not exist"}},
		{"an upstream not done waits", with(base, func(f *heldFacts) { f.up = upstreamFact{name: "up"} }),
			want{verdict: verdictWait, kind: store.WaitUpstream, why: `job "up"`}},
		{"an upstream that failed misses", with(base, func(f *heldFacts) { f.up = upstreamFact{name: "up", never: "required job failed"} }),
			want{verdict: verdictMiss, why: "required job failed"}},
		{"an upstream past the deadline misses", with(withDeadline(base, time.Second), func(f *heldFacts) { f.up = upstreamFact{name: "up"} }),
			want{verdict: verdictMiss, why: "waited for up"}},
		{"a down node waits and looks again", with(node(base), func(f *heldFacts) { f.nodeUp = false }),
			want{verdict: verdictWait, kind: store.WaitNodeDown, recheck: now.Add(waveRecheck), why: "node n1 is down"}},
		{"a down node past the deadline misses", with(node(withDeadline(base, time.Second)), func(f *heldFacts) { f.nodeUp = false }),
			want{verdict: verdictMiss, why: "node n1 was down until the starting deadline"}},
		{"a closed window waits", with(node(base), func(f *heldFacts) { f.window = window(closed("w")) }),
			want{verdict: verdictWait, kind: store.WaitWindow, until: opensAt, why: "window of node n1 is closed"}},
		{"an open window goes", with(node(base), func(f *heldFacts) { f.window = window(open("w")) }), release},
		{"untargeted past the deadline misses", withDeadline(base, time.Second),
			want{verdict: verdictMiss, why: "while the run waited"}},
		{"a node past the deadline misses", node(withDeadline(base, time.Second)),
			want{verdict: verdictMiss, why: "before node n1's run could start"}},
		{"a node of a limited wave past the deadline missed its turn", with(node(withDeadline(base, time.Second)), func(f *heldFacts) { f.limit = 1 }),
			want{verdict: verdictMiss, why: "waited for its turn"}},
		{"a paused wave waits", with(node(base), func(f *heldFacts) { f.paused = true }),
			want{verdict: verdictWait, kind: store.WaitPaused, why: "paused by an operator"}},
		{"an earlier instant of the node goes first", with(node(base), func(f *heldFacts) { f.earlier = at.Add(-time.Minute) }),
			want{verdict: verdictWait, kind: store.WaitCatchUp, why: "goes first"}},
		{"no free slot waits", with(node(base), func(f *heldFacts) { f.limit, f.active, f.free = 2, 2, 0 }),
			want{verdict: verdictWait, kind: store.WaitMaxParallel, recheck: now.Add(waveRecheck), why: "2 of max_parallel 2"}},
		{"a free slot goes", with(node(base), func(f *heldFacts) { f.limit, f.active, f.free = 2, 1, 1 }), release},
		{"forbid skips beside an active run", with(base, func(f *heldFacts) { f.policy, f.activeHere = store.Forbid, 3 }),
			want{verdict: verdictMiss, skip: true, why: "previous run active"}},
		{"forbid with nothing active goes", with(base, func(f *heldFacts) { f.policy = store.Forbid }), release},
		{"replace releases and replaces", with(base, func(f *heldFacts) { f.policy, f.activeHere = store.Replace, 3 }),
			want{verdict: verdictRelease, replace: true}},
		{"allow runs beside an active run", with(base, func(f *heldFacts) { f.activeHere = 3 }), release},
		{"no reboot slot waits", with(node(base), func(f *heldFacts) { f.slotGroup, f.slotErr = "g", errors.New("full") }),
			want{verdict: verdictWait, kind: store.WaitSlot, recheck: now.Add(waveRecheck), why: `reboot group "g": full`}},
		// Catch-up: of the instants that could not start, only the latest waits.
		{"latest: an older instant behind a closed gate is missed", with(base, func(f *heldFacts) { f.gate, f.newer = closed("g"), at.Add(time.Minute) }),
			want{verdict: verdictMiss, why: "superseded by the run for"}},
		{"latest: an older instant of a down node is missed", with(node(base), func(f *heldFacts) { f.nodeUp, f.newer = false, at.Add(time.Minute) }),
			want{verdict: verdictMiss, why: "node n1 is down"}},
		{"latest: an older instant of a paused wave is missed", with(node(base), func(f *heldFacts) { f.paused, f.newer = true, at.Add(time.Minute) }),
			want{verdict: verdictMiss, why: "superseded"}},
		{"latest: an older instant waiting for its turn keeps it", with(node(base), func(f *heldFacts) { f.limit, f.active, f.free, f.newer = 1, 1, 0, at.Add(time.Minute) }),
			want{verdict: verdictWait, kind: store.WaitMaxParallel}},
		{"latest: an older instant that can start goes", with(base, func(f *heldFacts) { f.newer = at.Add(time.Minute) }), release},
		{"all: an older instant behind a closed gate waits", with(base, func(f *heldFacts) {
			f.gate, f.newer, f.catchUp = closed("g"), at.Add(time.Minute), CatchUpAll
		}), want{verdict: verdictWait, kind: store.WaitGate, until: opensAt}},
		{"none: a closed gate misses at once", with(base, func(f *heldFacts) { f.gate, f.catchUp = closed("g"), CatchUpNone }),
			want{verdict: verdictMiss, why: "catch_up none"}},
		{"none: a down node misses at once", with(node(base), func(f *heldFacts) { f.nodeUp, f.catchUp = false, CatchUpNone }),
			want{verdict: verdictMiss, why: "catch_up none"}},
		{"none: waiting for a turn is no catch-up", with(node(base), func(f *heldFacts) { f.limit, f.active, f.free, f.catchUp = 1, 1, 0, CatchUpNone }),
			want{verdict: verdictWait, kind: store.WaitMaxParallel}},
		{"none: an open gate goes", with(base, func(f *heldFacts) { f.gate, f.catchUp = open("g"), CatchUpNone }), release},
		// Order: the first obstacle is the reason reported.
		{"a gate comes before a down node", with(node(base), func(f *heldFacts) { f.gate, f.nodeUp = closed("g"), false }),
			want{verdict: verdictWait, kind: store.WaitGate, until: opensAt}},
		{"a down node comes before its window", with(node(base), func(f *heldFacts) { f.nodeUp, f.window = false, window(closed("w")) }),
			want{verdict: verdictWait, kind: store.WaitNodeDown}},
		{"a window comes before the pause", with(node(base), func(f *heldFacts) { f.window, f.paused = window(closed("w")), true }),
			want{verdict: verdictWait, kind: store.WaitWindow, until: opensAt}},
		{"the pause comes before max_parallel", with(node(base), func(f *heldFacts) { f.paused, f.limit, f.active, f.free = true, 1, 1, 0 }),
			want{verdict: verdictWait, kind: store.WaitPaused}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(tc.f)
			w := tc.want
			if d.verdict != w.verdict {
				t.Fatalf("verdict = %s (%+v), want %s", d.verdict, d, w.verdict)
			}
			switch d.verdict {
			case verdictWait:
				if d.wait.Kind != w.kind || !d.wait.Until.Equal(w.until) || !w.recheck.IsZero() && !d.recheck.Equal(w.recheck) {
					t.Errorf("wait = %+v recheck %v; want kind %s until %v recheck %v", d.wait, d.recheck, w.kind, w.until, w.recheck)
				}
				if !strings.Contains(d.wait.Detail, w.why) {
					t.Errorf("wait detail = %q, want it to say %q", d.wait.Detail, w.why)
				}
			case verdictMiss:
				if !strings.Contains(d.why, w.why) || d.skip != w.skip {
					t.Errorf("miss = %q skip %v, want %q skip %v", d.why, d.skip, w.why, w.skip)
				}
			case verdictRelease:
				if d.replace != w.replace {
					t.Errorf("replace = %v, want %v", d.replace, w.replace)
				}
			}
		})
	}
}
