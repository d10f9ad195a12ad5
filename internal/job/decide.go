package job

import (
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

// This file is the one decision every held run goes through, first
// attempts and retries, untargeted runs and the nodes of a wave alike (an
// untargeted run is a wave of one node that is always up and has no
// window): release it now, let it wait (for what, and until when), or end
// it missed (why). decide is pure: the controller gathers the facts
// (evaluateHeld in lifecycle.go) and carries out the verdict.

// Catch-up policies (a job's catch_up attribute).
const (
	CatchUpLatest = "latest" // of the instants that could not start, only the latest waits
	CatchUpAll    = "all"    // every instant waits and runs, one after another per node
	CatchUpNone   = "none"   // an instant that cannot start at once is missed
)

// verdict is what a held run does now.
type verdict int

const (
	verdictRelease verdict = iota // make it claimable now
	verdictWait                   // keep holding it
	verdictMiss                   // end it as missed
)

func (v verdict) String() string {
	return [...]string{"release", "wait", "miss"}[v]
}

// decision is decide's answer for one held run.
type decision struct {
	verdict verdict
	// wait says why and until when the run waits (verdictWait).
	wait store.Waiting
	// recheck, when set, is when to decide again although Until is
	// unknown (a node may return, a slot may free, anywhere).
	recheck time.Time
	// why says why the run is missed (verdictMiss); skip records it as
	// skipped (a concurrency policy or a stopped wave) rather than missed.
	why  string
	skip bool
	// stopped: the run is skipped because its wave reached max_failures.
	stopped bool
	// replace: release it after stopping the job's active runs on the same
	// node (concurrency Replace).
	replace bool
}

// gateFact is the state of one gate (a job's schedule gate or a node's
// window) at the time of the decision.
type gateFact struct {
	name, what string // name "" = no gate
	exists     bool
	open       bool      // open now
	next       time.Time // when it next opens, if opens
	opens      bool
}

// upstreamFact is the first upstream job whose run for the instant has not
// succeeded; name "" when all have (or there are none).
type upstreamFact struct {
	name string
	// never says why that run will never succeed; "" if it still may.
	never string
}

// heldFacts is everything decide needs to know about one held run.
type heldFacts struct {
	run store.Run
	now time.Time
	// deadline is the end of the starting deadline, if hasDeadline.
	deadline    time.Time
	hasDeadline bool
	// suspended: the job is suspended, or the controller is stopping
	// (stopping).
	suspended, stopping bool
	// paused: the job's waves are paused by an operator.
	paused bool
	// backoff, for a retry, is when its backoff ends.
	backoff time.Time
	gate    gateFact
	up      upstreamFact
	// nodeUp: the run's node is registered and alive (always true for an
	// untargeted run).
	nodeUp bool
	window gateFact
	// failed and maxFailures: the wave's failed nodes and its limit (0 =
	// none).
	failed, maxFailures int
	// limit is the job's max_parallel resolved (0 = none), active its
	// nodes active across instants and free the slots left (-1 = no
	// limit).
	limit, active, free int
	// earlier is the instant of an earlier held run of the same node, if
	// any: runs of one node start in instant order.
	earlier time.Time
	// newer is the instant of a newer held run of the same node, if any;
	// prevUnavailable: the run's last decision had it wait for a gate,
	// a window, its node or a paused wave.
	newer           time.Time
	prevUnavailable bool
	catchUp         string // CatchUpLatest, CatchUpAll or CatchUpNone
	// policy is the job's concurrency policy and activeHere the ID of one
	// of its runs active on the same node (0 = none).
	policy     store.ConcurrencyPolicy
	activeHere int64
	// slotGroup is the reboot group whose slot the node's run takes;
	// slotErr is set when taking it failed.
	slotGroup string
	slotErr   error
	loc       *time.Location
}

// decide is the lifecycle's one decision; see the file comment. The
// run's obstacles are looked at first (obstacles), then the job's catch-up
// policy says whether an instant that could not start keeps waiting.
func decide(f heldFacts) decision {
	return catchUp(f, obstacles(f))
}

// catchUp applies the job's catch-up policy to d, the decision about a
// run's obstacles. It concerns the instants that could not start when
// due, held by unavailability (a closed gate or window, a down node, a
// paused wave), not runs waiting for their turn: with "none" such a run is
// missed at once; with "latest" it is missed as soon as a newer instant of
// its node is held, even if what held it has just gone (the newer run goes
// instead); with "all" it waits. Manual runs and retries (their instant
// did start) are not concerned.
func catchUp(f heldFacts, d decision) decision {
	r := f.run
	if r.Reason == store.ReasonManual || r.Reason == store.ReasonRetry || f.stopping {
		return d // a shutdown is no reason to give an instant up
	}
	held := d.verdict == verdictWait && unavailable(d.wait.Kind)
	switch {
	case f.catchUp == CatchUpNone && held:
		return decision{verdict: verdictMiss, why: fmt.Sprintf("catch_up none: %s at its instant", d.wait.Detail)}
	case f.catchUp == CatchUpAll || f.newer.IsZero():
		return d
	case held:
		return decision{verdict: verdictMiss, why: fmt.Sprintf("superseded by the run for %s (catch_up latest): %s", stamp(f.newer, f.loc), d.wait.Detail)}
	case d.verdict == verdictRelease && f.prevUnavailable:
		return decision{verdict: verdictMiss, why: fmt.Sprintf("superseded by the run for %s (catch_up latest)", stamp(f.newer, f.loc))}
	}
	return d
}

// unavailable reports whether kind is a reason an instant could not start
// at all (as opposed to waiting for its turn), which catch_up is about.
func unavailable(kind store.WaitKind) bool {
	switch kind {
	case store.WaitGate, store.WaitWindow, store.WaitNodeDown, store.WaitPaused:
		return true
	}
	return false
}

// obstacles decides from what stands in a run's way. The order of the
// checks is the order in which they are reported: the first one that
// holds the run back is its waiting reason.
func obstacles(f heldFacts) decision {
	r := f.run
	if r.Reason == store.ReasonManual {
		// A manual run is an operator's explicit "now".
		return decision{verdict: verdictRelease}
	}
	// A retry is not bound by the starting deadline: it was started in time.
	expired := f.hasDeadline && f.now.After(f.deadline) && r.Reason != store.ReasonRetry
	node := r.Target
	untilDeadline := func(d decision) decision {
		if f.hasDeadline && r.Reason != store.ReasonRetry && (d.wait.Until.IsZero() || f.deadline.Before(d.wait.Until)) {
			d.recheck = earliestOf(d.recheck, f.deadline.Add(time.Nanosecond))
		}
		return d
	}
	wait := func(kind store.WaitKind, detail string, until time.Time) decision {
		return decision{verdict: verdictWait, wait: store.Waiting{Kind: kind, Detail: detail, Until: until}}
	}
	miss := func(why string) decision { return decision{verdict: verdictMiss, why: why} }

	if f.suspended || f.stopping {
		if expired {
			return miss("the starting deadline passed while the job was suspended")
		}
		detail := "the job is suspended"
		if f.stopping && !f.suspended {
			detail = "the daemon is shutting down"
		}
		return untilDeadline(wait(store.WaitPaused, detail, time.Time{}))
	}
	if f.maxFailures > 0 && f.failed >= f.maxFailures {
		return decision{verdict: verdictMiss, skip: true, stopped: true,
			why: fmt.Sprintf("skipped: wave stopped after %d failed node(s) (max_failures %d)", f.failed, f.maxFailures)}
	}
	if f.backoff.After(f.now) {
		return wait(store.WaitBackoff, fmt.Sprintf("attempt %d waits out its retry backoff", r.Attempt), f.backoff)
	}
	if d, ok := gateDecision(f.gate, store.WaitGate, f, expired); !ok {
		return untilDeadline(d)
	}
	if f.up.name != "" {
		switch {
		case f.up.never != "":
			return miss(f.up.never)
		case expired:
			return miss("the starting deadline passed while the run waited for " + f.up.name)
		}
		return untilDeadline(wait(store.WaitUpstream, fmt.Sprintf("job %q has not succeeded for %s yet", f.up.name, stamp(r.ScheduledTime, f.loc)), time.Time{}))
	}
	if !f.nodeUp {
		if expired {
			return miss(fmt.Sprintf("node %s was down until the starting deadline", node))
		}
		d := wait(store.WaitNodeDown, fmt.Sprintf("node %s is down", node), time.Time{})
		d.recheck = f.now.Add(waveRecheck)
		return untilDeadline(d)
	}
	if d, ok := gateDecision(f.window, store.WaitWindow, f, expired); !ok {
		return untilDeadline(d)
	}
	if expired {
		switch {
		case node == "":
			return miss("the starting deadline passed while the run waited")
		case f.paused || f.limit > 0:
			return miss(fmt.Sprintf("the starting deadline passed while node %s waited for its turn", node))
		}
		return miss(fmt.Sprintf("the starting deadline passed before node %s's run could start", node))
	}
	if f.paused {
		return untilDeadline(wait(store.WaitPaused, "the job's waves are paused by an operator", time.Time{}))
	}
	if !f.earlier.IsZero() {
		d := wait(store.WaitCatchUp, fmt.Sprintf("the run for %s goes first", stamp(f.earlier, f.loc)), time.Time{})
		d.recheck = f.now.Add(waveRecheck) // it may end on another node
		return untilDeadline(d)
	}
	if f.free == 0 {
		d := wait(store.WaitMaxParallel, fmt.Sprintf("%d of max_parallel %d node(s) active", f.active, f.limit), time.Time{})
		d.recheck = f.now.Add(waveRecheck) // a slot frees when a run ends anywhere
		return untilDeadline(d)
	}
	replace := false
	if f.activeHere != 0 {
		switch f.policy {
		case store.Forbid:
			return decision{verdict: verdictMiss, skip: true, why: "skipped: previous run active"}
		case store.Replace:
			replace = true
		}
	}
	if f.slotErr != nil {
		d := wait(store.WaitSlot, fmt.Sprintf("no slot of reboot group %q: %v", f.slotGroup, f.slotErr), time.Time{})
		d.recheck = f.now.Add(waveRecheck)
		return untilDeadline(d)
	}
	return decision{verdict: verdictRelease, replace: replace}
}

// gateDecision is decide's step for one gate: ok when there is none or it
// is open; otherwise the run waits for it (until it opens; a gate that
// does not exist is waited for until the starting deadline) or is missed
// when it cannot open in time.
func gateDecision(g gateFact, kind store.WaitKind, f heldFacts, expired bool) (decision, bool) {
	switch {
	case g.name == "" || g.exists && g.open:
		return decision{}, true
	case !g.exists && expired:
		return decision{verdict: verdictMiss, why: g.what + " does not exist"}, false
	case !g.exists:
		return decision{verdict: verdictWait, wait: store.Waiting{Kind: kind, Detail: g.what + " does not exist"}}, false
	}
	retry := f.run.Reason == store.ReasonRetry
	if !g.opens || f.hasDeadline && !retry && !g.next.Before(f.deadline) {
		return decision{verdict: verdictMiss, why: g.what + " does not open before the starting deadline"}, false
	}
	return decision{verdict: verdictWait, wait: store.Waiting{Kind: kind, Detail: g.what + " is closed", Until: g.next}}, false
}

// wakeOf is when the controller must decide again about a waiting run:
// the earliest of its Until and its recheck; zero for "when something
// changes".
func (d decision) wakeOf() time.Time {
	return earliestOf(d.wait.Until, d.recheck)
}

// earliestOf returns the earlier of two instants, zero meaning none.
func earliestOf(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

// stamp formats an instant in loc (UTC when nil) for messages.
func stamp(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(time.RFC3339)
}
