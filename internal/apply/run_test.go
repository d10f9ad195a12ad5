package apply

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// relCatalog is the reference's rel.pp, checked against Puppet 7.23:
//
//	exec { 'a': command => '/bin/true', notify => Exec['c'] }
//	exec { 'b': command => '/bin/true', refreshonly => true, subscribe => Exec['a'] }
//	exec { 'c': command => '/bin/echo c', refreshonly => true }
//	exec { 'fail': command => '/bin/false' }
//	exec { 'after_fail': command => '/bin/true', require => Exec['fail'] }
//	exec { 'after_after': command => '/bin/true', require => Exec['after_fail'] }
//	notify { 'hi': message => 'hello' }
func relCatalog() *Catalog {
	b := newBuilder().
		add("exec", "a").
		add("exec", "b", "refreshonly", true).
		add("exec", "c", "refreshonly", true).
		add("exec", "fail", "fail", true).
		add("exec", "after_fail").
		add("exec", "after_after").
		add("notify", "hi", "message", "hello").
		edges("Exec[a] ~> Exec[c]", "Exec[a] ~> Exec[b]", "Exec[fail] -> Exec[after_fail]", "Exec[after_fail] -> Exec[after_after]")
	return &b.cat
}

// What Puppet 7.23 printed with --verbose (paths shortened to refs).
func TestRelMatchesPuppet(t *testing.T) {
	res := runCatalog(relCatalog(), nil)
	if res.err != nil {
		t.Fatal(res.err)
	}
	want := `Notice: Exec[a]/returns: executed successfully
Info: Exec[a]: Scheduling refresh of Exec[c]
Info: Exec[a]: Scheduling refresh of Exec[b]
Notice: Exec[b]: Triggered 'refresh' from 1 event
Notice: Exec[c]: Triggered 'refresh' from 1 event
Error: '/bin/false' returned 1 instead of one of [0]
Error: Exec[fail]/returns: change from 'notrun' to ['0'] failed: '/bin/false' returned 1 instead of one of [0]
Notice: Exec[after_fail]: Dependency Exec[fail] has failures: true
Warning: Exec[after_fail]: Skipping because of failed dependencies
Warning: Exec[after_after]: Skipping because of failed dependencies
Notice: hello
Notice: Notify[hi]/message: defined 'message' as 'hello'
Info: Class[Main]: Unscheduling all events on Class[Main]`
	if got := res.output(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.Join(res.trace, ","); got != "run a,refresh b,refresh c,run fail" {
		t.Errorf("trace %s", got)
	}
	r := res.report
	if r.Changed != 4 || r.Failed != 1 || r.Skipped != 2 || r.Refreshed != 2 || r.ExitCode(true) != 6 || r.ExitCode(false) != 0 {
		t.Errorf("report %+v", r)
	}
}

func TestRelNoopMatchesPuppet(t *testing.T) {
	res := runCatalog(relCatalog(), func(o *Options) { o.Noop = true })
	want := `Notice: Exec[a]/returns: current_value 'notrun', should be ['0'] (noop)
Info: Exec[a]: Scheduling refresh of Exec[c]
Info: Exec[a]: Scheduling refresh of Exec[b]
Notice: Exec[b]: Would have triggered 'refresh' from 1 event
Notice: Exec[c]: Would have triggered 'refresh' from 1 event
Notice: Exec[fail]/returns: current_value 'notrun', should be ['0'] (noop)
Notice: Exec[after_fail]/returns: current_value 'notrun', should be ['0'] (noop)
Notice: Exec[after_after]/returns: current_value 'notrun', should be ['0'] (noop)
Notice: Notify[hi]/message: current_value 'absent', should be 'hello' (noop)
Notice: Class[Main]: Would have triggered 'refresh' from 7 events
Notice: Stage[main]: Would have triggered 'refresh' from 1 event`
	if got := res.output(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if len(res.trace) != 0 {
		t.Errorf("noop changed something: %v", res.trace)
	}
	if res.report.ExitCode(true) != 0 || res.report.OutOfSync != 5 {
		t.Errorf("report %+v", res.report)
	}
}

// classCatalog is the reference's files.pp without its file resources'
// paths: a contained class refreshed through its sentinels.
//
//	class inner { exec { 'in1': } exec { 'in2': refreshonly => true } }
//	contain inner
//	Exec['top'] ~> Class['inner'] ~> exec { 'after': refreshonly => true }
//	exec { 'top': }
//	exec { 'rf': command => '/bin/false', refreshonly => true, subscribe => Exec['top'] }
//	exec { 'rf2': refresh => '/bin/false', refreshonly => true, subscribe => Exec['top'] }
//	exec { 'dep': require => Exec['rf'] }
func classCatalog() *Catalog {
	b := newBuilder()
	for _, f := range []string{"a", "d", "l", "p", "gone"} {
		b.add("file", f)
	}
	b.class("Inner").add("exec", "in1").add("exec", "in2", "refreshonly", true).done().
		add("exec", "after", "refreshonly", true).
		add("exec", "top").
		add("exec", "rf", "refreshonly", true, "refreshfail", true).
		add("exec", "rf2", "refreshonly", true).
		add("exec", "dep").
		edges("Exec[top] ~> Class[Inner]", "Class[Inner] ~> Exec[after]", "Exec[top] ~> Exec[rf]", "Exec[top] ~> Exec[rf2]", "Exec[rf] -> Exec[dep]")
	// contain also leaves the class in Stage[main], as Puppet's include does.
	b.cat.Edges = append(b.cat.Edges, Edge{From: "Stage[main]", To: "Class[Inner]", Kind: Contain})
	return &b.cat
}

func TestContainedClassRefreshMatchesPuppet(t *testing.T) {
	res := runCatalog(classCatalog(), nil)
	want := `Notice: File[a]/ensure: created
Notice: File[d]/ensure: created
Notice: File[l]/ensure: created
Notice: File[p]/ensure: created
Notice: File[gone]/ensure: created
Notice: Exec[top]/returns: executed successfully
Info: Exec[top]: Scheduling refresh of Exec[rf]
Info: Exec[top]: Scheduling refresh of Exec[rf2]
Info: Exec[top]: Scheduling refresh of Class[Inner]
Info: Class[Inner]: Scheduling refresh of Exec[in1]
Info: Class[Inner]: Scheduling refresh of Exec[in2]
Notice: Exec[in1]/returns: executed successfully
Notice: Exec[in1]: Triggered 'refresh' from 1 event
Notice: Exec[in2]: Triggered 'refresh' from 1 event
Info: Class[Inner]: Scheduling refresh of Exec[after]
Notice: Exec[after]: Triggered 'refresh' from 1 event
Error: Exec[rf]: Failed to call refresh: '/bin/false' returned 1 instead of one of [0]
Error: Exec[rf]: '/bin/false' returned 1 instead of one of [0]
Notice: Exec[rf2]: Triggered 'refresh' from 1 event
Notice: Exec[dep]: Dependency Exec[rf] has failures: true
Warning: Exec[dep]: Skipping because of failed dependencies
Info: Class[Main]: Unscheduling all events on Class[Main]
Info: Stage[main]: Unscheduling all events on Stage[main]`
	if got := res.output(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// in1 is out of sync and notified: it runs twice, as in Puppet.
	if !strings.Contains(strings.Join(res.trace, ","), "run in1,refresh in1") {
		t.Errorf("trace %v", res.trace)
	}
}

func TestContainedClassNoopMatchesPuppet(t *testing.T) {
	res := runCatalog(classCatalog(), func(o *Options) { o.Noop = true })
	want := `Notice: Exec[top]/returns: current_value 'notrun', should be ['0'] (noop)
Info: Exec[top]: Scheduling refresh of Exec[rf]
Info: Exec[top]: Scheduling refresh of Exec[rf2]
Info: Exec[top]: Scheduling refresh of Class[Inner]
Notice: Class[Inner]: Would have triggered 'refresh' from 1 event
Info: Class[Inner]: Scheduling refresh of Exec[in1]
Info: Class[Inner]: Scheduling refresh of Exec[in2]
Notice: Exec[in1]/returns: current_value 'notrun', should be ['0'] (noop)
Notice: Exec[in1]: Would have triggered 'refresh' from 1 event
Notice: Exec[in2]: Would have triggered 'refresh' from 1 event
Notice: Class[Inner]: Would have triggered 'refresh' from 3 events
Info: Class[Inner]: Scheduling refresh of Exec[after]
Notice: Exec[after]: Would have triggered 'refresh' from 1 event
Notice: Exec[rf]: Would have triggered 'refresh' from 1 event
Notice: Exec[rf2]: Would have triggered 'refresh' from 1 event
Notice: Exec[dep]/returns: current_value 'notrun', should be ['0'] (noop)
Notice: Class[Main]: Would have triggered 'refresh' from 11 events
Notice: Stage[main]: Would have triggered 'refresh' from 2 events`
	got := res.output()
	// The five file lines come first; compare the rest.
	lines := strings.SplitN(got, "\n", 6)
	if len(lines) != 6 || lines[5] != want {
		t.Fatalf("got:\n%s\nwant (after 5 file lines):\n%s", got, want)
	}
}

// cyc.pp, checked against Puppet 7.23: a class-level cycle and a plain one.
func TestCyclesMatchPuppet(t *testing.T) {
	b := newBuilder().class("A").add("exec", "a1").done().class("B").add("exec", "b1").done().
		add("exec", "p").add("exec", "q").add("exec", "free").
		edges("Exec[b1] -> Exec[a1]", "Class[A] -> Class[B]", "Exec[q] -> Exec[p]", "Exec[p] -> Exec[q]")
	res := runCatalog(&b.cat, nil)
	var abort *AbortError
	if !errors.As(res.err, &abort) || !errors.Is(res.err, ErrCycles) {
		t.Fatalf("err = %v", res.err)
	}
	want := `Error: Found 2 dependency cycles:
(Exec[a1] => Class[A] => Class[B] => Exec[b1] => Exec[a1])\n(Exec[p] => Exec[q] => Exec[p])\nTry the '--graph' option and opening the resulting '.dot' file in OmniGraffle or GraphViz
Error: (Exec[a1] => Class[A] => Class[B] => Exec[b1] => Exec[a1]) comes from: Exec[a1] is contained in Class[A]; Class[A] -> Class[B] at test.pp:1:1; Exec[b1] is contained in Class[B]; Exec[b1] -> Exec[a1] at test.pp:1:1
Error: (Exec[p] => Exec[q] => Exec[p]) comes from: Exec[p] -> Exec[q] at test.pp:1:1; Exec[q] -> Exec[p] at test.pp:1:1
Error: Failed to apply catalog: One or more resource dependency cycles detected in graph`
	if got := res.output(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if len(res.trace) != 0 {
		t.Errorf("something ran: %v", res.trace)
	}
}

func TestSelfLoop(t *testing.T) {
	b := newBuilder().add("exec", "self").edges("Exec[self] -> Exec[self]")
	res := runCatalog(&b.cat, nil)
	if !strings.Contains(res.output(), "Found 1 dependency cycle:\n(Exec[self] => Exec[self])\\n") {
		t.Fatalf("got %s", res.output())
	}
}

// Puppet's ordering example: z_first waits for m_last and then runs at once.
func TestManifestOrdering(t *testing.T) {
	b := newBuilder()
	for _, n := range []string{"z_first", "a_second", "foo_1", "foo_2", "m_last"} {
		b.add("exec", n)
	}
	b.edges("Exec[m_last] -> Exec[z_first]")
	res := runCatalog(&b.cat, nil)
	if got := strings.Join(res.report.Evaluated, " "); got != "Exec[a_second] Exec[foo_1] Exec[foo_2] Exec[m_last] Exec[z_first]" {
		t.Fatalf("order %s", got)
	}
}

func TestTitleHashVectors(t *testing.T) {
	// The reference's vectors, in ascending order.
	refs := []string{"Notify[b]", "Notify[c]", "Notify[a]", "Exec[b]", "Exec[a]"}
	prefixes := []string{"20bea25c", "9601e91c", "d8664296", "f0f6de3b", "f88e874e"}
	for i, r := range refs {
		if h := TitleHash(r); !strings.HasPrefix(h, prefixes[i]) {
			t.Errorf("TitleHash(%s) = %s, want %s…", r, h, prefixes[i])
		}
	}
	b := newBuilder().add("exec", "a").add("exec", "b").add("notify", "a").add("notify", "b").add("notify", "c")
	res := runOrdered(&b.cat, OrderTitleHash, 0, nil)
	if got := strings.Join(res.report.Evaluated, " "); got != strings.Join(refs, " ") {
		t.Fatalf("title-hash order %s", got)
	}
}

func TestRandomOrderingIsSeeded(t *testing.T) {
	b := newBuilder()
	for _, n := range strings.Fields("a b c d e f g h i j k l") {
		b.add("exec", n)
	}
	b.edges("Exec[l] -> Exec[a]")
	order := func(seed uint64) string {
		return strings.Join(runOrdered(&b.cat, OrderRandom, seed, nil).report.Evaluated, " ")
	}
	o1, o2, o3 := order(1), order(1), order(2)
	if o1 != o2 {
		t.Fatal("same seed, different order")
	}
	if o1 == o3 {
		t.Fatal("different seeds gave the same order of 12 resources")
	}
	if strings.Index(o1, "Exec[l]") > strings.Index(o1, "Exec[a]") {
		t.Fatal("random ordering broke a relationship")
	}
}

func TestDuplicateEdgesOneRefresh(t *testing.T) {
	b := newBuilder().add("exec", "a").add("exec", "b", "refreshonly", true).
		edges("Exec[a] ~> Exec[b]", "Exec[a] ~> Exec[b]", "Exec[a] ~> Exec[b]")
	res := runCatalog(&b.cat, nil)
	if strings.Count(res.output(), "Scheduling refresh of Exec[b]") != 3 ||
		!strings.Contains(res.output(), "Notice: Exec[b]: Triggered 'refresh' from 3 events") {
		t.Fatalf("got %s", res.output())
	}
	if strings.Join(res.trace, ",") != "run a,refresh b" {
		t.Fatalf("trace %v", res.trace)
	}
}

func TestRefreshChainsAndBeforeCarriesNone(t *testing.T) {
	b := newBuilder().add("exec", "src").add("exec", "t", "refreshonly", true).
		add("exec", "chain2", "refreshonly", true).add("exec", "plain", "refreshonly", true).
		edges("Exec[src] ~> Exec[t]", "Exec[t] ~> Exec[chain2]", "Exec[src] -> Exec[plain]")
	res := runCatalog(&b.cat, nil)
	if strings.Join(res.trace, ",") != "run src,refresh t,refresh chain2" {
		t.Fatalf("trace %v\n%s", res.trace, res.output())
	}
}

func TestScheduleGate(t *testing.T) {
	now := time.Date(2024, 6, 1, 3, 0, 0, 0, time.UTC)
	closed := gateFunc(func(last, now time.Time) bool { return false })
	open := gateFunc(func(last, now time.Time) bool { return true })
	gates := func(name string) (Gate, bool) {
		switch name {
		case "closed":
			return closed, true
		case "open":
			return open, true
		}
		return nil, false
	}
	b := newBuilder().add("exec", "src").add("exec", "gated", "schedule", "closed", "refreshonly", true).
		add("exec", "after").add("exec", "ok", "schedule", "open").
		edges("Exec[src] ~> Exec[gated]", "Exec[gated] -> Exec[after]")
	state := NewState()
	res := runCatalog(&b.cat, func(o *Options) {
		o.Gates, o.Clock, o.State = gates, clock.NewFake(now), state
	})
	// The refresh aimed at the gated resource is dropped; its dependent runs.
	if !strings.Contains(res.output(), "Info: Exec[gated]: Unscheduling all events on Exec[gated]") {
		t.Errorf("output %s", res.output())
	}
	if got := strings.Join(res.trace, ","); got != "run src,run after,run ok" {
		t.Errorf("trace %s", got)
	}
	if _, ok := state.Resources["Exec[gated]"]; ok {
		t.Error("a skipped resource was recorded as checked")
	}
	if e := state.Resources["Exec[ok]"]; !e.Checked.Equal(now) || !e.Synced.Equal(now) {
		t.Errorf("state %+v", e)
	}
	if res.report.Skipped != 1 || res.report.Failed != 0 {
		t.Errorf("report %+v", res.report)
	}

	// A missing schedule aborts where it is reached, as in Puppet.
	b2 := newBuilder().add("exec", "first").add("exec", "b", "schedule", "nosuch").add("exec", "c")
	res = runCatalog(&b2.cat, func(o *Options) { o.Gates = gates })
	var abort *AbortError
	if !errors.As(res.err, &abort) || res.output() != "Notice: Exec[first]/returns: executed successfully\nError: Failed to apply catalog: Could not find schedule nosuch" {
		t.Fatalf("err %v output %s", res.err, res.output())
	}
}

func TestCheckedOnNoopAndFailure(t *testing.T) {
	now := time.Date(2024, 6, 1, 11, 0, 0, 0, time.UTC)
	b := newBuilder().add("exec", "f", "fail", true).add("exec", "n", "noop", true).add("exec", "u", "unreadable", true)
	state := NewState()
	runCatalog(&b.cat, func(o *Options) { o.Clock, o.State = clock.NewFake(now), state })
	for _, ref := range []string{"Exec[f]", "Exec[n]"} {
		if e := state.Resources[ref]; !e.Checked.Equal(now) || !e.Synced.IsZero() {
			t.Errorf("%s: %+v", ref, e)
		}
	}
	if _, ok := state.Resources["Exec[u]"]; ok {
		t.Error("a resource whose state could not be read was recorded as checked")
	}
}

func TestFailedDependencyNoticeOncePerFailure(t *testing.T) {
	b := newBuilder().class("A").add("exec", "a_fail", "fail", true).done().
		class("B").add("exec", "b1").add("exec", "b2").done().
		edges("Class[A] -> Class[B]")
	res := runCatalog(&b.cat, nil)
	out := res.output()
	if strings.Count(out, "Dependency Exec[a_fail] has failures: true") != 1 ||
		!strings.Contains(out, "Notice: Exec[b1]: Dependency Exec[a_fail] has failures: true") ||
		strings.Count(out, "Skipping because of failed dependencies") != 2 {
		t.Fatalf("got %s", out)
	}
}

func TestMissingReference(t *testing.T) {
	b := newBuilder().add("exec", "m").edges("Exec[m] -> Exec[nope]")
	res := runCatalog(&b.cat, nil)
	if res.err == nil || res.err.Error() != "test.pp:1:1: Could not find resource 'Exec[nope]' for relationship from 'Exec[m]'" {
		t.Fatalf("err %v", res.err)
	}
}
