package cli

import (
	"context"
	"encoding/json"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/pgtest"
)

// TestMixedUpgrade is a rolling upgrade of a PostgreSQL cluster: a node of
// the previous version (the binary ALMANAC_UPGRADE_FROM names, built by
// scripts/mixed-upgrade) and a node of this one run on one database; each
// is stopped and restarted in turn, the old one onto this version, and
// every instant of every job from before the first stop to after the last
// restart must have exactly one run. Opt-in: it skips without the old
// binary.
func TestMixedUpgrade(t *testing.T) {
	old := os.Getenv("ALMANAC_UPGRADE_FROM")
	if old == "" {
		t.Skip("set ALMANAC_UPGRADE_FROM to a previous version's binary (scripts/mixed-upgrade does)")
	}
	bin := almanacBinary(t)
	ctx := context.Background()
	base := pgtest.Schema(t)
	pool, err := pgxpool.New(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := clusterDB{t, pool}
	const jobs, period = 50, 10 * time.Second

	start := func(binary, name string) *daemonProc {
		return startDaemon(t, binary, t.TempDir(), "--node", name, "--store", base+"&application_name=almanac-"+name)
	}
	// The old node creates the schema it knows; the new one migrates it.
	procs := map[string]*daemonProc{"old": start(old, "old")}
	procs["new"] = start(bin, "new")
	installRunAudit(t, pool)
	putPeriodicJobs(t, procs["new"].url, jobs, period)
	firstInstant := db.now().Truncate(period).Add(period)

	// The cluster view shows the two versions side by side.
	resp, err := authGet(procs["new"].url + "/api/v1/cluster")
	if err != nil {
		t.Fatal(err)
	}
	var cl apitype.Cluster
	err = json.NewDecoder(resp.Body).Decode(&cl)
	resp.Body.Close()
	if err != nil || len(cl.Nodes) != 2 || cl.Nodes[0].Version == cl.Nodes[1].Version {
		t.Errorf("cluster view of a mixed cluster = %+v, %v; want two nodes of different versions", cl.Nodes, err)
	}

	// Stop and restart the leader, then the other node; the old node comes
	// back as this version. Each waits until the cluster scheduled an
	// instant after the last change.
	afterInstant := func(since time.Time) {
		eventually(t, "an instant scheduled by the cluster", 4*period, func() (bool, error) {
			var n int
			err := pool.QueryRow(ctx, `SELECT count(*) FROM run_audit WHERE at > $1 AND attempt = 1`, since).Scan(&n)
			return n >= jobs, err
		})
	}
	afterInstant(db.now())
	l := db.leader(0, 30*time.Second)
	order := []string{l.holder, map[string]string{"old": "new", "new": "old"}[l.holder]}
	for _, name := range order {
		d := procs[name]
		if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-d.done
		afterInstant(db.now())
		procs[name] = start(bin, name)
		afterInstant(db.now())
	}
	// One more instant on the upgraded cluster, so the window checked
	// spans enough of them.
	afterInstant(db.now())
	lastInstant := db.now().Add(-period).Truncate(period)
	checkExactlyOnce(t, pool, firstInstant, lastInstant, period, jobs)
}
