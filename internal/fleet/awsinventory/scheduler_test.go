package awsinventory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/fleet/awsinventory/awsfake"
)

// run steps a scheduler as its Run loop does, jumping the fake clock to
// each instant it asks for, until end.
func run(t *testing.T, s *fleet.Scheduler, clk *clock.Fake, end time.Time) {
	t.Helper()
	for range 10000 {
		wake := s.Step(context.Background(), false)
		if wake.After(end) {
			clk.Set(end)
			return
		}
		clk.Set(wake)
	}
	t.Fatal("the scheduler never reached the end")
}

func kinds(log *fleet.MemoryLog, id string, ks ...fleet.EventKind) []string {
	var out []string
	for _, e := range log.Events(id) {
		for _, k := range ks {
			if e.Kind == k {
				out = append(out, e.Time.UTC().Format("Mon 15:04:05")+" "+string(e.Kind)+": "+e.Message)
			}
		}
	}
	return out
}

// The fleet scheduler with the AWS source, on a fake clock: instances and
// databases start and stop at their transitions with one request per
// region and instant, an instance that cannot start yet is retried alone, a
// hibernating instance hibernates, and an RDS instance that RDS restarts
// after seven days stopped is seen as an outside change and stopped again
// at the next stop transition.
func TestSchedulerEndToEnd(t *testing.T) {
	s := newStandin(t, "us-east-1", "eu-west-1")
	hib := with(office, "almanac-schedule-stop-hibernate", "true")
	s.AddInstance(awsfake.Instance{ID: "i-web1", Region: "us-east-1", State: "stopped", Tags: with(office, "Name", "web-1")})
	s.AddInstance(awsfake.Instance{ID: "i-web2", Region: "us-east-1", State: "stopped", Tags: office})
	s.AddInstance(awsfake.Instance{ID: "i-batch", Region: "us-east-1", State: "stopped", Hibernation: true, Tags: hib})
	s.AddInstance(awsfake.Instance{ID: "i-dub", Region: "eu-west-1", State: "stopped", Tags: office})
	db := awsfake.DB{Region: "eu-west-1", Identifier: "reports", Status: "stopped",
		Tags: map[string]string{"prosperops-schedule-power-on": "mon0800", "prosperops-schedule-power-off": "mon1800", "prosperops-schedule-timezone": "utc"}}
	s.AddDB(db)
	archive := awsfake.DB{Region: "us-east-1", Identifier: "archive", Status: "available",
		Tags: map[string]string{"almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc"}}
	s.AddDB(archive)
	src := newSource(t, s, []string{"us-east-1", "eu-west-1"})
	clk := clock.NewFake(time.Date(2024, 6, 3, 7, 0, 0, 0, time.UTC)) // a Monday
	log := fleet.NewMemoryLog(0)
	sched, err := fleet.New(fleet.Config{Source: src, Clock: clk, Events: log, InventoryInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// web-2 is not ready to start at 08:00 (the first three requests
	// naming it fail), and is at 08:00:30.
	s.Refuse("i-web2", "IncorrectInstanceState", 3)
	run(t, sched, clk, time.Date(2024, 6, 3, 19, 0, 0, 0, time.UTC))

	var calls []string
	for _, c := range s.Calls() {
		calls = append(calls, c.String())
	}
	want := []string{
		// 08:00: one request per region; web-2 fails the batch and is pinned down.
		"us-east-1 StartInstances i-batch,i-web1,i-web2 -> IncorrectInstanceState",
		"us-east-1 StartInstances i-batch",
		"us-east-1 StartInstances i-web1,i-web2 -> IncorrectInstanceState",
		"us-east-1 StartInstances i-web1",
		"us-east-1 StartInstances i-web2 -> IncorrectInstanceState",
		"eu-west-1 StartInstances i-dub",
		"eu-west-1 StartDBInstance reports",
		// 08:00:30: web-2 alone, now that it has stopped.
		"us-east-1 StartInstances i-web2",
		// 18:00
		"us-east-1 StopInstances i-web1,i-web2",
		"us-east-1 StopInstances i-batch hibernate",
		"eu-west-1 StopInstances i-dub",
		"eu-west-1 StopDBInstance reports",
		"us-east-1 StopDBInstance archive",
	}
	if !sameCalls(calls, want) {
		t.Fatalf("requests:\n  %s\nwant (per region and instant, in any order)\n  %s", strings.Join(calls, "\n  "), strings.Join(want, "\n  "))
	}
	if r := kinds(log, "i-web2", fleet.EventActionRetried, fleet.EventActionSucceeded); len(r) != 3 ||
		!strings.Contains(r[0], "start i-web2: IncorrectInstanceState") || !strings.Contains(r[1], "Mon 08:00:30") {
		t.Errorf("web-2: %q", r)
	}
	for _, id := range []string{"i-web1", "i-batch", "i-dub"} {
		if r := kinds(log, id, fleet.EventActionRetried, fleet.EventActionFailed); len(r) != 0 {
			t.Errorf("%s: %q", id, r)
		}
	}
	if st, _ := sched.Resource("i-batch"); st.State != fleet.Hibernated {
		t.Errorf("batch %+v", st)
	}
	if st, _ := sched.Resource("i-web1"); st.Name != "web-1" || st.State != fleet.Stopped {
		t.Errorf("web-1 %+v", st)
	}

	// Seven days stopped: RDS starts archive by itself on Monday morning.
	// The next inventory sees the change; the 18:00 stop applies again.
	before := len(s.Calls())
	run(t, sched, clk, time.Date(2024, 6, 10, 9, 30, 0, 0, time.UTC))
	s.SetDBStatus("us-east-1", false, "archive", "available")
	run(t, sched, clk, time.Date(2024, 6, 10, 19, 0, 0, 0, time.UTC))
	changed := kinds(log, archive.ARN(), fleet.EventStateChanged)
	if len(changed) != 1 || changed[0] != "Mon 10:00:00 state-changed: archive changed from stopped to running outside almanac" {
		t.Errorf("outside changes of archive: %q", changed)
	}
	if st := s.DBStatus("us-east-1", false, "archive"); st != "stopped" {
		t.Errorf("archive is %s after the 18:00 stop", st)
	}
	var again []string
	for _, c := range s.Calls()[before:] {
		if c.IDs[0] == "archive" {
			again = append(again, c.String())
		}
	}
	if strings.Join(again, "|") != "us-east-1 StopDBInstance archive" {
		t.Errorf("requests for archive in the second week: %q", again)
	}
}

// sameCalls compares request logs where requests to different regions, or
// for different actions, at one instant may interleave: each region's
// sequence must match.
func sameCalls(got, want []string) bool {
	split := func(ls []string) map[string][]string {
		m := map[string][]string{}
		for _, l := range ls {
			f := strings.Fields(l)
			key := fmt.Sprint(f[0], f[1], strings.HasSuffix(l, " hibernate"))
			m[key] = append(m[key], l)
		}
		return m
	}
	g, w := split(got), split(want)
	if len(g) != len(w) {
		return false
	}
	for k, ls := range w {
		if strings.Join(g[k], "|") != strings.Join(ls, "|") {
			return false
		}
	}
	return true
}
