package webuitest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/webui"
)

// Daily fires at hour:minute every day on the wall clock of Loc.
type Daily struct {
	Hour, Minute int
	Loc          *time.Location
	// Weekday, when set (1 = Monday ... 7 = Sunday), restricts to one day.
	Weekday int
}

// Next implements Schedule.
func (d Daily) Next(t time.Time) time.Time {
	l := t.In(d.Loc)
	c := time.Date(l.Year(), l.Month(), l.Day(), d.Hour, d.Minute, 0, 0, d.Loc)
	for i := 0; i < 9; i++ {
		if c.After(t) && (d.Weekday == 0 || (int(c.Weekday())+6)%7+1 == d.Weekday) {
			return c
		}
		c = time.Date(c.Year(), c.Month(), c.Day()+1, d.Hour, d.Minute, 0, 0, d.Loc)
	}
	return time.Time{}
}

// Every fires at every multiple of D since the Unix epoch.
type Every struct{ D time.Duration }

// Next implements Schedule.
func (e Every) Next(t time.Time) time.Time { return t.Truncate(e.D).Add(e.D) }

// Demo job, window and resource counts, for tests that check what the demo shows.
const (
	DemoJobs      = 5
	DemoWindows   = 3
	DemoResources = 8
)

// DemoWindowBlocks maps each demo window to its number of open intervals a week.
var DemoWindowBlocks = map[string]int{"business-hours": 5, "nightly-reboots": 5, "weekend-maintenance": 1}

// Demo returns a backend filled with demo data around c.Now(): five jobs
// (one suspended, one with a run in progress, one fanned out over the
// cluster's five nodes with a wave in progress) with their runs and
// events, three windows, and the fleet demo's eight resources with the
// events of their first inventory.
func Demo(c clock.Clock) *Backend {
	b := New(c)
	now := c.Now().Truncate(time.Minute)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	newYork, _ := time.LoadLocation("America/New_York")

	b.AddJob(webui.Job{
		Name: "backup", Schedule: "0 2 * * *", Description: "at 02:00 every day", Zone: "Europe/Berlin",
		Command: "/usr/local/bin/backup --all --dest s3://backups/nightly", Source: "manifest",
		ConcurrencyPolicy: "Forbid", StartingDeadline: 2 * time.Hour, BackoffLimit: 2, Timeout: 90 * time.Minute,
		Gate: "weekend-maintenance", Env: map[string]string{"BACKUP_LEVEL": "full"}, Succeeded: 41, Failed: 2,
	}, Daily{Hour: 2, Loc: berlin})
	b.AddJob(webui.Job{
		Name: "report", Schedule: "*/30 * * * *", Description: "every 30 minutes", Zone: "UTC",
		Command: "report --since 30m", Source: "api", Succeeded: 1300, Failed: 4,
	}, Every{30 * time.Minute})
	b.AddJob(webui.Job{
		Name: "cleanup", Schedule: "15 4 * * 0", Description: "at 04:15 on Sunday", Zone: "America/New_York",
		Command: "find /tmp -mtime +7 -delete", Source: "manifest", Suspended: true, Succeeded: 12,
	}, Daily{Hour: 4, Minute: 15, Loc: newYork, Weekday: 7})
	b.AddJob(webui.Job{
		Name: "sync-inventory", Schedule: "0 */6 * * *", Description: "at minute 0 past every 6th hour", Zone: "UTC",
		Command: "inventory sync", Source: "manifest", StartingDeadline: 10 * time.Minute, Requires: []string{"backup"},
		Succeeded: 200, Failed: 1,
	}, Every{6 * time.Hour})

	// A week of history, oldest first so IDs grow with time.
	type past struct {
		job   string
		at    time.Time
		state string
		exit  int
		out   string
	}
	var hist []past
	for d := 6; d >= 1; d-- {
		at := time.Date(now.Year(), now.Month(), now.Day()-d, 2, 0, 0, 0, berlin)
		st, code, out := webui.RunSucceeded, 0, "backup: 1,204 files, 3.1 GiB\nbackup: done in 12m4s\n"
		if d == 3 {
			st, code, out = webui.RunFailed, 3, "backup: 1,204 files\nbackup: upload failed: connection reset by peer\n"
		}
		hist = append(hist, past{"backup", at, st, code, out})
	}
	for h := 36; h >= 6; h -= 6 {
		at := now.Add(-time.Duration(h) * time.Hour).Truncate(6 * time.Hour)
		st := webui.RunSucceeded
		if h == 24 {
			st = webui.RunMissed
		}
		hist = append(hist, past{"sync-inventory", at, st, 0, "synced 812 hosts\n"})
	}
	hist = append(hist, past{"cleanup", time.Date(now.Year(), now.Month(), now.Day()-5, 4, 15, 0, 0, newYork), webui.RunSucceeded, 0, "removed 37 files\n"})
	for k := 4; k >= 1; k-- {
		at := now.Truncate(30 * time.Minute).Add(-time.Duration(k) * 30 * time.Minute)
		st, code, out := webui.RunSucceeded, 0, "rows: 5120\nreport written to /var/reports/latest.csv\n"
		if k == 2 {
			st, code, out = webui.RunFailed, 1, "error: database is locked\n"
		}
		hist = append(hist, past{"report", at, st, code, out})
	}
	sortPast := func(i, j int) bool { return hist[i].at.Before(hist[j].at) }
	for i := 1; i < len(hist); i++ { // insertion sort keeps equal times in order
		for j := i; j > 0 && sortPast(j, j-1); j-- {
			hist[j], hist[j-1] = hist[j-1], hist[j]
		}
	}
	for _, h := range hist {
		if h.at.After(now) {
			continue
		}
		r := webui.Run{Job: h.job, ScheduledTime: h.at, Reason: "schedule", State: h.state, Node: "demo"}
		if h.state == webui.RunMissed {
			r.Error = "the daemon was down; started too late for the 10m starting deadline"
			r = b.AddRun(r)
			b.AddEvent(webui.Event{Time: h.at.Add(40 * time.Minute), Kind: "run.missed", Job: h.job, RunID: r.ID, Message: r.Error})
			continue
		}
		code := h.exit
		r.StartedAt, r.FinishedAt, r.ExitCode, r.Output = h.at.Add(2*time.Second), h.at.Add(2*time.Second+47*time.Second), &code, []byte(h.out)
		if h.state == webui.RunFailed {
			r.Error = fmt.Sprintf("exit status %d", code)
		}
		b.AddEvent(webui.Event{Time: r.StartedAt, Kind: "run.started", Job: h.job, RunID: int64(len(b.runs) + 1), Message: "scheduled run"})
		r = b.AddRun(r)
		kind := "run." + h.state
		b.AddEvent(webui.Event{Time: r.FinishedAt, Kind: kind, Job: h.job, RunID: r.ID, Message: fmt.Sprintf("exited %d", code)})
	}
	// The current report run is still going.
	cur := now.Truncate(30 * time.Minute)
	r := b.AddRun(webui.Run{Job: "report", ScheduledTime: cur, Reason: "schedule", State: webui.RunRunning, Node: "demo",
		StartedAt: cur.Add(time.Second), Output: []byte("rows: 1024...\n")})
	b.AddEvent(webui.Event{Time: r.StartedAt, Kind: "run.started", Job: "report", RunID: r.ID, Message: "scheduled run"})
	b.AddEvent(webui.Event{Time: now.Add(-5 * 24 * time.Hour), Kind: "job.suspended", Job: "cleanup", Message: "suspended by ops: disk migration"})
	// The report's failure alert could not be delivered: its webhook is down.
	b.AddEvent(webui.Event{Time: now.Add(-50 * time.Minute), Kind: "notify.failed", Job: "report",
		Message: "webhook https://hooks.example.com/almanac: 502 Bad Gateway (5 attempts)"})
	// Today's backup waits for its gate to open.
	b.AddRun(webui.Run{Job: "backup", ScheduledTime: now.Add(-10 * time.Minute), Reason: "schedule", State: webui.RunPending})

	b.AddWindow(webui.Window{Name: "weekend-maintenance", Kind: "window", Zone: "Europe/Berlin",
		Intervals: []webui.Interval{{Start: 5*1440 + 22*60, End: 6*1440 + 6*60}}})
	var reboots, office []webui.Interval
	for d := range 5 {
		reboots = append(reboots, webui.Interval{Start: d*1440 + 3*60, End: d*1440 + 4*60})
		office = append(office, webui.Interval{Start: d*1440 + 9*60, End: d*1440 + 17*60})
	}
	b.AddWindow(webui.Window{Name: "nightly-reboots", Kind: "window", Zone: "UTC", Intervals: reboots})
	b.AddWindow(webui.Window{Name: "business-hours", Kind: "schedule", Zone: "America/New_York", Intervals: office,
		Description: "Puppet schedule: range 09:00 - 17:00, weekday Mon-Fri, repeat 1 per day"})

	addFanOutJob(b, now)
	addFleet(b, c)
	b.SetCluster(demoCluster(now))
	addApplies(b, now)
	// The log is kept in time order, as a real one is.
	slices.SortStableFunc(b.events, func(x, y webui.Event) int { return x.Time.Compare(y.Time) })
	for i := range b.events {
		b.events[i].ID = int64(i + 1)
	}
	return b
}

// demoLeaseTTL is the demo cluster's lease TTL, against which its nodes'
// heartbeats are judged.
const demoLeaseTTL = 5 * time.Second

// demoCluster is five nodes on one PostgreSQL store: node-b leads in term
// 7, node-c's heartbeat is late (it is being restarted: suspect). node-a to node-c
// are labelled role=web, node-d and node-e role=db.
func demoCluster(now time.Time) apitype.Cluster {
	exp := now.Add(4 * time.Second)
	started := now.Add(-26 * time.Hour)
	c := apitype.Cluster{Leader: "node-b", Term: 7, LeaseExpiresAt: &exp, Self: "node-a", Now: now,
		Nodes: []apitype.ClusterNode{
			{ID: "node-a", Address: "10.0.0.11:8080", Version: "v0.9.0", Host: "sched-a", PID: 812, StartedAt: started, HeartbeatAt: now.Add(-800 * time.Millisecond)},
			{ID: "node-b", Address: "10.0.0.12:8080", Version: "v0.9.0", Host: "sched-b", PID: 1407, StartedAt: started.Add(-3 * time.Hour), HeartbeatAt: now.Add(-300 * time.Millisecond), Leader: true},
			{ID: "node-c", Address: "10.0.0.13:8080", Version: "v0.9.0", Host: "sched-c", PID: 655, StartedAt: now.Add(-2 * time.Minute), HeartbeatAt: now.Add(-9 * time.Second)},
			{ID: "node-d", Address: "10.0.1.21:8080", Version: "v0.9.0", Host: "db-1", PID: 977, StartedAt: started, HeartbeatAt: now.Add(-600 * time.Millisecond)},
			{ID: "node-e", Address: "10.0.1.22:8080", Version: "v0.9.0", Host: "db-2", PID: 1012, StartedAt: started, HeartbeatAt: now.Add(-200 * time.Millisecond)},
		}}
	for i := range c.Nodes {
		role, zone := "web", "eu-1"
		if i >= 3 {
			role = "db"
		}
		if i%2 == 1 {
			zone = "eu-2"
		}
		c.Nodes[i].Labels = map[string]string{"role": role, "zone": zone}
		c.Nodes[i].SetLiveness(now, demoLeaseTTL)
	}
	return c
}

// addFleet runs one inventory of the fleet demo at the clock's time and adds
// its resources and events.
func addFleet(b *Backend, c clock.Clock) {
	log := fleet.NewMemoryLog(0)
	s, err := fleet.New(fleet.Config{Source: fleet.NewDemo(), Clock: clock.NewFake(c.Now()), Events: log})
	if err != nil {
		panic(err) // the config above always has a source and a clock
	}
	s.Step(context.Background(), true)
	for _, st := range s.Resources() {
		b.AddResource(webui.FleetResource(st))
	}
	for _, e := range log.Events("") {
		b.AddEvent(webui.FleetEvent(e))
	}
}
