package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/pgtest"
)

// Default lease settings the cluster test runs with (the daemon's defaults).
const (
	e2eTTL   = 5 * time.Second
	e2eRenew = time.Second
	// e2ePeriod is how often each job fires; longer than TTL + renew, so a
	// failover never spans two instants of one job.
	e2ePeriod = 10 * time.Second
	e2eJobs   = 200
)

// clusterDB is the test's own view of the shared database.
type clusterDB struct {
	t    *testing.T
	pool *pgxpool.Pool
}

type lease struct {
	holder string
	term   int64
}

// leader waits for a valid lease with a term above after.
func (db clusterDB) leader(after int64, within time.Duration) lease {
	db.t.Helper()
	var l lease
	eventually(db.t, fmt.Sprintf("a leader with a term above %d", after), within, func() (bool, error) {
		var valid bool
		err := db.pool.QueryRow(context.Background(),
			`SELECT holder, term, expires_at > now() FROM leader WHERE name = 'controller'`).Scan(&l.holder, &l.term, &valid)
		return err == nil && valid && l.term > after, err
	})
	return l
}

func (db clusterDB) now() time.Time {
	db.t.Helper()
	var t time.Time
	if err := db.pool.QueryRow(context.Background(), `SELECT clock_timestamp()`).Scan(&t); err != nil {
		db.t.Fatal(err)
	}
	return t
}

// TestClusterFailover runs three `serve` processes on one database with 200
// jobs, kills the leader with SIGKILL again and again, then pauses one past
// its lease, and checks that every scheduled instant got exactly one run,
// that takeovers happen within TTL + renew interval, and that the paused
// leader created no run after it lost the lease.
func TestClusterFailover(t *testing.T) {
	bin := almanacBinary(t)
	kills := 10
	if os.Getenv("ALMANAC_SLOW") == "1" {
		kills = 40
	}
	if v := os.Getenv("ALMANAC_FAILOVER_KILLS"); v != "" { // scripts/failover
		if _, err := fmt.Sscan(v, &kills); err != nil || kills < 1 {
			t.Fatalf("ALMANAC_FAILOVER_KILLS=%q: want a positive count", v)
		}
	}
	ctx := context.Background()
	base := pgtest.Schema(t)
	pool, err := pgxpool.New(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := clusterDB{t, pool}

	procs := map[string]*daemonProc{}
	start := func(name string) {
		// application_name tags every row the node's connections write, for
		// the audit trigger below.
		procs[name] = startDaemon(t, bin, t.TempDir(), "--node", name,
			"--store", base+"&application_name=almanac-"+name)
	}
	names := []string{"n1", "n2", "n3"}
	for _, n := range names {
		start(n)
	}
	installRunAudit(t, pool)

	putPeriodicJobs(t, procs["n1"].url, e2eJobs, e2ePeriod)
	// Instants are checked from the first one after every job existed.
	firstInstant := db.now().Truncate(e2ePeriod).Add(e2ePeriod)

	// The cluster view, from a follower and the leader alike.
	l := db.leader(0, 30*time.Second)
	for _, n := range names {
		var cl apitype.Cluster
		resp, err := authGet(procs[n].url + "/api/v1/cluster")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&cl)
		resp.Body.Close()
		if err != nil || cl.Self != n || cl.Term < l.term || len(cl.Nodes) != 3 || cl.Leader == "" {
			t.Fatalf("GET /api/v1/cluster on %s = %+v, %v", n, cl, err)
		}
		for _, node := range cl.Nodes {
			if node.Host == "" || node.PID == 0 {
				t.Fatalf("GET /api/v1/cluster on %s: node %s has no host or pid: %+v", n, node.ID, node)
			}
		}
	}

	// scheduled waits until node has inserted the first attempts of every
	// job for one instant since since.
	scheduled := func(node string, since time.Time) {
		eventually(t, node+" schedules an instant of every job", 3*e2ePeriod, func() (bool, error) {
			var done bool
			err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM run_audit WHERE app = $1 AND at > $2 AND attempt = 1
				GROUP BY scheduled_time HAVING count(*) = $3)`, "almanac-"+node, since, e2eJobs).Scan(&done)
			return done, err
		})
	}

	// Kill the leader again and again, each time once it has scheduled an
	// instant; a follower must take over within TTL + renew interval.
	var takeovers []time.Duration
	elected := db.now()
	for i := 0; i < kills; i++ {
		l = db.leader(l.term-1, 30*time.Second)
		scheduled(l.holder, elected)
		d := procs[l.holder]
		killed := time.Now()
		if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		next := db.leader(l.term, 2*(e2eTTL+e2eRenew))
		took := time.Since(killed)
		elected = db.now()
		takeovers = append(takeovers, took)
		if next.holder == l.holder {
			t.Fatalf("kill %d: the killed node %s still leads", i, l.holder)
		}
		<-d.done
		start(l.holder)
		l = next
	}

	// Pause the leader past its lease, let another node take over and
	// schedule, then resume it.
	l = db.leader(l.term-1, 30*time.Second)
	scheduled(l.holder, elected)
	paused := procs[l.holder]
	if err := paused.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	next := db.leader(l.term, 2*(e2eTTL+e2eRenew))
	lostAt := db.now()
	scheduled(next.holder, lostAt)
	if err := paused.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed := db.now()
	// Let the resumed node live through another instant of every job.
	eventually(t, "another instant after the resume", 3*e2ePeriod, func() (bool, error) {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM run_audit WHERE at > $1::timestamptz + $2::float8 * interval '1 second'`,
			resumed, e2ePeriod.Seconds()).Scan(&n)
		return n >= e2eJobs, err
	})
	var stale int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM run_audit WHERE at > $1 AND app = $2`,
		lostAt, "almanac-"+l.holder).Scan(&stale); err != nil {
		t.Fatal(err)
	}
	if stale != 0 {
		t.Errorf("the paused leader %s created %d runs after losing the lease", l.holder, stale)
	}
	lastInstant := db.now().Add(-e2ePeriod).Truncate(e2ePeriod)

	instants := checkExactlyOnce(t, pool, firstInstant, lastInstant, e2ePeriod, e2eJobs)

	slices.Sort(takeovers)
	pct := func(p float64) time.Duration { return takeovers[int(p*float64(len(takeovers)-1))] }
	t.Logf("%d instants × %d jobs checked; takeover after SIGKILL over %d kills: min %v p50 %v p90 %v p99 %v max %v",
		instants, e2eJobs, len(takeovers), takeovers[0].Round(time.Millisecond), pct(0.5).Round(time.Millisecond),
		pct(0.9).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), takeovers[len(takeovers)-1].Round(time.Millisecond))
	for _, took := range takeovers {
		if took > e2eTTL+e2eRenew+time.Second {
			t.Errorf("a takeover took %v, more than TTL %v + renew %v (+1 s for observing it)", took, e2eTTL, e2eRenew)
		}
	}
}
