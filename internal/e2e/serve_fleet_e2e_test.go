package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/weekly"
	"github.com/almanac-sh/almanac/internal/zincati"
)

// The fleet test (TestFleetJobs) runs five `serve` processes with labels on
// one PostgreSQL schema, two fleet-wide jobs, and kills nodes and the
// leader with SIGKILL at seeded random moments. Its checks are in
// fleet_audit_test.go.

// fleetNode is one node of the test fleet: its name, labels and own
// window (serve --node-window), if any.
type fleetNode struct {
	name   string
	labels []string
	window string
}

// The fleet: two database nodes, three others, one of which has a window
// of its own. The rolling job maps role=db to db-window and everything
// else to other, n5 included (a job's default comes before a node's own
// window); fleet-all names no window, so n5 runs it only inside its own.
var fleetNodes = []fleetNode{
	{name: "n1", labels: []string{"role=db", "zone=a"}},
	{name: "n2", labels: []string{"role=db", "zone=b"}},
	{name: "n3", labels: []string{"role=web", "zone=a"}},
	{name: "n4", labels: []string{"role=web", "zone=b"}},
	{name: "n5", labels: []string{"role=web", "zone=c"}, window: "solo"},
}

// Window names and the parity of the UTC minutes each is open in: the db
// window and n5's own window in even minutes, the rolling job's default
// in odd ones, so a rolling wave always has nodes that must wait for the
// next minute, and n5 would start in the wrong minutes if its own window
// were taken for the rolling job's default.
var fleetWindowParity = map[string]int{"db-window": 0, "solo": 0, "other": 1}

// fleetWindowOf is the window node's runs of job wait for ("" for none),
// as docs/fleet-jobs.md orders them: the job's entry for a selector the
// node matches, else the job's default, else the node's own window. The
// rolling job names a window for every node (n5's own is not used);
// fleet-all names none, so only n5 waits, for its own.
func fleetWindowOf(job string, n fleetNode) string {
	switch {
	case job == fleetRolling && slices.Contains(n.labels, "role=db"):
		return "db-window"
	case job == fleetRolling:
		return "other"
	}
	return n.window
}

const (
	fleetAll     = "fleet-all"     // every node, every second
	fleetRolling = "fleet-rolling" // every node, once a minute, two at a time, in windows
	fleetLong    = "fleet-long"    // every node, twice a minute, 5 to 60 s long, exit 0, 1 or 2
	// fleetAllDeadline is the every-second job's starting deadline.
	fleetAllDeadline = 10 * time.Second
	// fleetRollingSleep is how long each node's rolling run takes.
	fleetRollingSleep = 3
)

// fleetAllShell records one line per process start in $FLEET_LOG: the
// node (from the daemon's environment), job, instant, attempt and run id.
const fleetAllShell = `echo "start $FLEET_NODE $ALMANAC_JOB $ALMANAC_SCHEDULED_TIME $ALMANAC_ATTEMPT $ALMANAC_RUN_ID $(date +%s.%N)" >>"$FLEET_LOG"`

// fleetRollingShell records start and end, also when the run is stopped.
var fleetRollingShell = `l="$FLEET_NODE $ALMANAC_JOB $ALMANAC_SCHEDULED_TIME $ALMANAC_ATTEMPT $ALMANAC_RUN_ID"
echo "start $l $(date +%s.%N)" >>"$FLEET_LOG"
trap 'echo "end $l $(date +%s.%N) term" >>"$FLEET_LOG"; exit 143' TERM
sleep ` + strconv.Itoa(fleetRollingSleep) + ` & wait $!
echo "end $l $(date +%s.%N)" >>"$FLEET_LOG"`

// fleetLongShell sleeps 5 to 60 s and exits 0, 1 or 2, both by its run id,
// and logs its start and its end with the exit status it is about to
// return: the audit compares that with the recorded outcome.
const fleetLongShell = `l="$FLEET_NODE $ALMANAC_JOB $ALMANAC_SCHEDULED_TIME $ALMANAC_ATTEMPT $ALMANAC_RUN_ID"
echo "start $l $(date +%s.%N)" >>"$FLEET_LOG"
sleep $((5 + ALMANAC_RUN_ID * 7 % 56))
code=$((ALMANAC_RUN_ID % 3))
echo "end $l $(date +%s.%N) exit=$code" >>"$FLEET_LOG"
exit $code`

// life is a stretch during which a node's process served: from when it
// reported its address to when it was killed (zero: still alive).
type life struct{ from, to time.Time }

// takeover is a leader kill: when the leader died and when the next
// leader held the lease.
type takeover struct {
	leader          string
	killed, elected time.Time
}

// fleetRig runs the test's daemons and remembers when each lived.
type fleetRig struct {
	t       *testing.T
	bin     string
	store   string
	windows string // the --windows value
	cals    map[string]*weekly.Calendar
	log     string // FLEET_LOG
	data    map[string]string
	procs   map[string]*daemonProc
	lives   map[string][]life
}

func (f *fleetRig) node(name string) fleetNode {
	for _, n := range fleetNodes {
		if n.name == name {
			return n
		}
	}
	f.t.Fatalf("no fleet node %q", name)
	return fleetNode{}
}

// start starts node name (again) and records the start of a life.
func (f *fleetRig) start(name string) {
	n := f.node(name)
	args := []string{"--node", name, "--store", f.store + "&application_name=almanac-" + name, "--windows", f.windows}
	for _, l := range n.labels {
		args = append(args, "--node-label", l)
	}
	if n.window != "" {
		args = append(args, "--node-window", n.window)
	}
	if f.data[name] == "" {
		f.data[name] = f.t.TempDir()
	}
	f.procs[name] = startDaemonEnv(f.t, f.bin, f.data[name],
		[]string{"ALMANAC_TOKEN=" + e2eToken, "FLEET_NODE=" + name, "FLEET_LOG=" + f.log}, args...)
	f.lives[name] = append(f.lives[name], life{from: time.Now()})
}

// kill sends node name SIGKILL and returns when; the life ends then.
func (f *fleetRig) kill(name string) time.Time {
	d := f.procs[name]
	at := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		f.t.Fatal(err)
	}
	ls := f.lives[name]
	ls[len(ls)-1].to = at
	<-d.done
	return at
}

// window returns the window node's runs of job wait for, and its
// calendar, as almanac reads the file (nil for none).
func (f *fleetRig) window(job, node string) (string, *weekly.Calendar) {
	w := fleetWindowOf(job, f.node(node))
	if w == "" {
		return "", nil
	}
	return w, f.cals[w]
}

// opens returns when node's window for job is first open at or after at
// (at itself without a window); ok is false if it never opens.
func (f *fleetRig) opens(job, node string, at time.Time) (time.Time, bool) {
	_, cal := f.window(job, node)
	if cal == nil || cal.Contains(at) {
		return at, true
	}
	return cal.NextOpen(at)
}

// aliveThroughout reports whether node name served during all of [from, to].
func (f *fleetRig) aliveThroughout(name string, from, to time.Time) bool {
	for _, l := range f.lives[name] {
		if !l.from.After(from) && (l.to.IsZero() || !l.to.Before(to)) {
			return true
		}
	}
	return false
}

// client returns an API client for a live node.
func (f *fleetRig) client() *apiclient.Client {
	for _, n := range fleetNodes {
		if d := f.procs[n.name]; d != nil && d.cmd.ProcessState == nil {
			c := d.client(f.t)
			return c
		}
	}
	f.t.Fatal("no live node")
	return nil
}

// writeFleetWindows writes one Zincati fragment per window of
// fleetWindowParity into dir, with a one-minute window in each UTC minute
// of its parity from from for minutes; it returns the --windows value and
// the calendars read back from the files.
func writeFleetWindows(t *testing.T, dir string, from time.Time, minutes int) (string, map[string]*weekly.Calendar) {
	t.Helper()
	var items []string
	cals := map[string]*weekly.Calendar{}
	for name, parity := range fleetWindowParity {
		var b strings.Builder
		b.WriteString("[updates]\nstrategy = \"periodic\"\n")
		m := from.UTC().Truncate(time.Minute)
		for i := 0; i < minutes; i++ {
			at := m.Add(time.Duration(i) * time.Minute)
			if int(at.Unix()/60%2) != parity {
				continue
			}
			fmt.Fprintf(&b, "\n[[updates.periodic.window]]\ndays = [%q]\nstart_time = %q\nlength_minutes = 1\n",
				at.Weekday().String()[:3], at.Format("15:04"))
		}
		path := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := zincati.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, name+"="+path)
		cals[name] = cfg.Calendar
	}
	return strings.Join(items, ","), cals
}

// envInt reads a positive integer from the environment variable name,
// or returns def.
func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// TestFleetJobs runs five labelled nodes on one database with a job on
// every node every second and a rolling job (two nodes at a time, each
// node in its window) every minute, kills nodes and the leader with
// SIGKILL at seeded random moments and restarts them, and then checks
// from the runs (as a trigger recorded every version of them), the events
// and the commands' own log that every (job, instant, node) ran at most
// once, that no instant was lost for a node that lived through its
// deadline, that never more than two nodes were inside the rolling job
// and that no node started it outside its window.
//
// ALMANAC_FLEET_KILLS (default 6), ALMANAC_FLEET_WAVES (rolling instants,
// default 2) and ALMANAC_FLEET_SEED set the run; scripts/fleet-demo runs
// the long version.
func TestFleetJobs(t *testing.T) {
	bin := almanacBinary(t)
	kills := envInt(t, "ALMANAC_FLEET_KILLS", 6)
	waves := envInt(t, "ALMANAC_FLEET_WAVES", 2)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ALMANAC_FLEET_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("ALMANAC_FLEET_SEED=%q: want an unsigned integer", v)
		}
		seed = s
	}
	t.Logf("seed %d (ALMANAC_FLEET_SEED=%d repeats the kill plan), %d kills, %d rolling instants", seed, seed, kills, waves)
	rng := rand.New(rand.NewPCG(seed, 0))

	ctx := context.Background()
	base := pgtest.Schema(t)
	pool, err := pgxpool.New(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := clusterDB{t, pool}

	dir := t.TempDir()
	began := time.Now()
	f := &fleetRig{t: t, bin: bin, store: base, log: filepath.Join(dir, "exec.log"),
		data: map[string]string{}, procs: map[string]*daemonProc{}, lives: map[string][]life{}}
	f.windows, f.cals = writeFleetWindows(t, dir, began.Add(-2*time.Minute), 20+(waves+1)*2+kills)
	for _, n := range fleetNodes {
		f.start(n.name)
	}
	installRunLog(t, pool)
	l := db.leader(0, 60*time.Second)

	// The rolling job fires once a minute at second x, 20..55, so that its
	// wave ends before its next instant: the nodes whose window opens the
	// next minute start at :00, two at once, and the third once a slot is
	// free, a few seconds later. Its deadline covers that wait and stops
	// short of the next instant.
	created := db.now()
	first := created.Add(20 * time.Second).Truncate(time.Second)
	if s := first.Second(); s < 20 {
		first = first.Add(time.Duration(20-s) * time.Second)
	} else if s > 55 {
		first = first.Add(time.Duration(80-s) * time.Second)
	}
	x := first.Second()
	rollingDeadline := time.Duration(min(80-x, 55)) * time.Second
	lastWave := first.Add(time.Duration(waves-1) * time.Minute)
	putFleetJobs(t, f.client(), x, rollingDeadline)
	firstAll := created.Truncate(time.Second).Add(2 * time.Second)
	t.Logf("jobs created at %s; rolling instants %s..%s (deadline %s)", created.UTC().Format("15:04:05.000"),
		first.UTC().Format(time.TimeOnly), lastWave.UTC().Format(time.TimeOnly), rollingDeadline)

	// Kill at seeded random moments spread over the waves, each once the
	// fleet is whole and every node has run an instant since the last
	// restart. Every third kill (the first included) is the leader's;
	// the others pick any node. A killed node comes back at once or only
	// after the cluster has seen its heartbeat lapse, by a coin.
	planFrom, planTo := created.Add(5*time.Second), lastWave.Add(rollingDeadline-5*time.Second)
	var takeovers []takeover
	healed := db.now()
	for i := 0; i < kills; i++ {
		at := planFrom.Add(time.Duration(i+1) * planTo.Sub(planFrom) / time.Duration(kills+1))
		at = at.Add(time.Duration(rng.Int64N(int64(4*time.Second))) - 2*time.Second)
		f.waitWhole(pool, healed)
		eventually(t, fmt.Sprintf("kill %d's moment %s", i+1, at.UTC().Format("15:04:05.000")), 5*time.Minute,
			func() (bool, error) { return !time.Now().Before(at), nil })
		l = db.leader(0, 60*time.Second)
		victim := l.holder
		if i%3 != 0 {
			victim = fleetNodes[rng.IntN(len(fleetNodes))].name
		}
		quick := rng.IntN(2) == 0
		killed := f.kill(victim)
		what := "node"
		if victim == l.holder {
			next := db.leader(l.term, 60*time.Second)
			takeovers = append(takeovers, takeover{leader: victim, killed: killed, elected: time.Now()})
			what = fmt.Sprintf("leader (term %d; %s leads term %d after %v)", l.term, next.holder, next.term,
				time.Since(killed).Round(time.Millisecond))
		}
		if !quick {
			// The cluster sees the node gone: its heartbeat has lapsed.
			eventually(t, victim+"'s heartbeat lapses", 60*time.Second, func() (bool, error) {
				var gone bool
				err := pool.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM nodes WHERE id = $1 AND heartbeat_at > now() - interval '6 seconds')`,
					victim).Scan(&gone)
				return gone, err
			})
		}
		f.start(victim)
		healed = db.now()
		t.Logf("kill %d at %s: %s, %s, back after %v", i+1, killed.UTC().Format("15:04:05.000"), victim, what,
			time.Since(killed).Round(time.Millisecond))
	}

	// Let the last wave run out, stop both jobs and wait for their runs.
	f.waitWhole(pool, healed)
	eventually(t, "the last rolling instant's deadline", 5*time.Minute, func() (bool, error) {
		return time.Now().After(lastWave.Add(rollingDeadline + 2*time.Second)), nil
	})
	c := f.client()
	suspended := db.now()
	for _, j := range []string{fleetAll, fleetRolling, fleetLong} {
		if _, err := c.JobSuspend(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	stopped := db.now()
	eventually(t, "no run of the fleet jobs active", 3*time.Minute, func() (bool, error) {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM runs WHERE state = 'running'`).Scan(&n)
		return n == 0, err
	})

	a := loadFleetAudit(t, pool, f, takeovers)
	a.checkAtMostOnce(t)
	a.checkOutcomes(t, fleetLong)
	lostAll := a.checkNoneLost(t, fleetAll, firstAll, stopped.Add(-fleetAllDeadline-2*time.Second), time.Second, fleetAllDeadline)
	lostRolling := a.checkNoneLost(t, fleetRolling, first, lastWave, time.Minute, rollingDeadline)
	overlapLog, overlapRuns := a.checkRolling(t, stopped)
	a.checkWindows(t)
	a.checkMissed(t, map[string]time.Duration{fleetAll: fleetAllDeadline, fleetRolling: rollingDeadline}, suspended)
	a.flush(t)
	a.report(t, fmt.Sprintf("%d kills (%d of the leader)", kills, len(takeovers)), lostAll+lostRolling, overlapLog, overlapRuns)
}

// putFleetJobs creates the two jobs: fleet-all on every node every second
// and fleet-rolling on every node once a minute at second x, two nodes at
// a time, each inside its window.
func putFleetJobs(t *testing.T, c *apiclient.Client, x int, rollingDeadline time.Duration) {
	t.Helper()
	keep := 1000
	allDeadline := int64(fleetAllDeadline / time.Second)
	rollDeadline := int64(rollingDeadline / time.Second)
	for name, spec := range map[string]apitype.JobSpec{
		fleetAll: {Cron: "* * * * * *", Nodes: "all", Command: apitype.Command{Shell: fleetAllShell},
			StartingDeadlineSeconds: &allDeadline, SuccessfulJobsHistoryLimit: &keep, FailedJobsHistoryLimit: &keep},
		fleetLong: {Cron: "5,35 * * * * *", Nodes: "all", Command: apitype.Command{Shell: fleetLongShell},
			SuccessfulJobsHistoryLimit: &keep, FailedJobsHistoryLimit: &keep},
		fleetRolling: {Cron: fmt.Sprintf("%d * * * * *", x), Nodes: "all", Command: apitype.Command{Shell: fleetRollingShell},
			MaxParallel: "2", Window: map[string]string{"role=db": "db-window", "default": "other"},
			StartingDeadlineSeconds: &rollDeadline, SuccessfulJobsHistoryLimit: &keep, FailedJobsHistoryLimit: &keep},
	} {
		if _, _, err := c.JobPut(context.Background(), name, spec); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
}

// waitWhole waits until every node has started its run of an instant of
// fleet-all after since, or heart-beats while its window for the job is
// closed.
func (f *fleetRig) waitWhole(pool *pgxpool.Pool, since time.Time) {
	f.t.Helper()
	ctx := context.Background()
	eventually(f.t, "every node runs an instant of "+fleetAll+" after "+ts(since), 2*time.Minute, func() (bool, error) {
		rows, err := pool.Query(ctx, `SELECT n.id, n.heartbeat_at > now() - interval '2 seconds',
			EXISTS (SELECT 1 FROM runs r WHERE r.job = $1 AND r.target = n.id AND r.scheduled_time > $2 AND r.started_at IS NOT NULL)
			FROM nodes n`, fleetAll, since)
		if err != nil {
			return false, err
		}
		whole := map[string]bool{}
		for rows.Next() {
			var id string
			var beats, ran bool
			if err := rows.Scan(&id, &beats, &ran); err != nil {
				return false, err
			}
			_, cal := f.window(fleetAll, id)
			whole[id] = ran || beats && cal != nil && !cal.Contains(time.Now())
		}
		if err := rows.Err(); err != nil {
			return false, err
		}
		for _, n := range fleetNodes {
			if !whole[n.name] {
				return false, fmt.Errorf("%s has not run since", n.name)
			}
		}
		return true, nil
	})
}
