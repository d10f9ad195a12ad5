package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/cli"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// upgradeGroup is a set of jobs sharing one period in an upgrade test.
type upgradeGroup struct {
	prefix string
	jobs   int
	period time.Duration
}

// upgradeGroups: a few jobs every second (a handover or restart that
// stalls scheduling shows at once) and more every ten seconds.
var upgradeGroups = []upgradeGroup{{"sec", 3, time.Second}, {"ten", 10, 10 * time.Second}}

// putUpgradeJobs creates the groups' jobs through the API at url, each
// keeping keep succeeded runs (0: the default).
func putUpgradeJobs(t *testing.T, url string, keep int) {
	t.Helper()
	c, err := apiclient.New(url, apiclient.WithToken(e2eToken))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range upgradeGroups {
		cron := "* * * * * *"
		if g.period > time.Second {
			cron = fmt.Sprintf("*/%d * * * * *", int(g.period.Seconds()))
		}
		for i := range g.jobs {
			spec := apitype.JobSpec{Cron: cron, Command: apitype.Command{Argv: []string{"true"}}}
			if keep > 0 {
				spec.SuccessfulJobsHistoryLimit = &keep
			}
			if _, _, err := c.JobPut(context.Background(), fmt.Sprintf("%s-%02d", g.prefix, i), spec); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// oldRevision names the old binary by the commit scripts/mixed-upgrade
// caches it under (its directory), shortened.
func oldRevision(bin string) string {
	rev := filepath.Base(filepath.Dir(bin))
	return rev[:min(len(rev), 12)]
}

// afterEveryJob returns a wait until every job of upgradeGroups has a run
// after a given time; jobsSince counts the jobs that have one. A wait
// that times out is reported and the test goes on, so that its findings
// (which instants were lost) are still listed at the end.
func afterEveryJob(t *testing.T, jobsSince func(since time.Time) (int, error)) func(time.Time) {
	all := 0
	for _, g := range upgradeGroups {
		all += g.jobs
	}
	return func(since time.Time) {
		t.Helper()
		const within = 30 * time.Second
		deadline := time.Now().Add(within)
		for {
			n, err := jobsSince(since)
			if err == nil && n >= all {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("only %d of %d jobs got a run after %s within %s (err %v)", n, all, since.UTC().Format(time.TimeOnly), within, err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// upgradeFindings lists every instant of every group's jobs from first
// to last that did not get exactly one first attempt, as "lost" or
// "doubled" lines naming who inserted what, plus the runs recorded as
// missed. count(job, instant) answers the first attempts and who
// inserted them.
// Instants for which down reports true (a single node's restart) are
// not checked.
func upgradeFindings(first, last time.Time, down func(time.Time) bool, count func(job string, at time.Time) (int, string, error), missed []string) (lines []string, bad int, err error) {
	stamp := func(t time.Time) string { return t.UTC().Format(time.TimeOnly) }
	for _, g := range upgradeGroups {
		from := first.Truncate(g.period)
		if from.Before(first) {
			from = from.Add(g.period)
		}
		for i := range g.jobs {
			job := fmt.Sprintf("%s-%02d", g.prefix, i)
			// Consecutive lost instants of a job make one line.
			var lostFrom, lostTo time.Time
			lost := 0
			flush := func() {
				switch {
				case lost == 1:
					lines = append(lines, fmt.Sprintf("lost: %s at %s has no run", job, stamp(lostFrom)))
				case lost > 1:
					lines = append(lines, fmt.Sprintf("lost: %s from %s to %s: %d instants without a run", job, stamp(lostFrom), stamp(lostTo), lost))
				}
				lost = 0
			}
			for at := from; !at.After(last); at = at.Add(g.period) {
				if down != nil && down(at) {
					continue
				}
				n, by, err := count(job, at)
				if err != nil {
					return nil, 0, err
				}
				if n != 1 {
					bad++
				}
				if n == 0 {
					if lost == 0 {
						lostFrom = at
					}
					lostTo = at
					lost++
					continue
				}
				flush()
				if n > 1 {
					lines = append(lines, fmt.Sprintf("doubled: %s at %s has %d runs (inserted by %s)", job, stamp(at), n, by))
				}
			}
			flush()
		}
	}
	for _, m := range missed {
		lines = append(lines, "missed event: "+m)
	}
	return lines, bad + len(missed), nil
}

// reportFindings fails t with one line per finding (the first 40) and
// the count of instants lost or doubled, so scripts/mixed-upgrade can
// print them.
func reportFindings(t *testing.T, what string, findings []string, bad int) {
	t.Helper()
	for i, f := range findings {
		if i == 40 {
			break
		}
		t.Errorf("%s: %s", what, f)
	}
	if bad > 0 {
		t.Errorf("%s: %d instants lost or doubled (or recorded missed)", what, bad)
	}
}

// TestMixedUpgrade is a rolling upgrade of a PostgreSQL cluster: a node of
// the previous version (the binary ALMANAC_UPGRADE_FROM names, built by
// scripts/mixed-upgrade) and a node of this one run on one database; each
// is stopped and restarted in turn, the old one onto this version, and
// every instant of every job from before the first stop to after the last
// restart must have exactly one run. Once no old node is left, the leader
// contracts the schema. Opt-in: it skips without the old binary.
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

	start := func(binary, name string) *daemonProc {
		return startDaemon(t, binary, t.TempDir(), "--node", name,
			"--store", base+"&lease_ttl=2s&lease_renew=250ms&application_name=almanac-"+name)
	}
	// The old node creates the schema it knows; the new one migrates it.
	procs := map[string]*daemonProc{"old": start(old, "old")}
	procs["new"] = start(bin, "new")
	every := []*daemonProc{procs["old"], procs["new"]}
	installRunAudit(t, pool)
	putUpgradeJobs(t, procs["new"].url, 0)
	// The old node started first and leads: from here it schedules on the
	// schema the new node expanded.
	first := db.now().Truncate(time.Second).Add(2 * time.Second)

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

	// Each step waits until the cluster scheduled an instant of every job
	// after the last change.
	afterInstant := afterEveryJob(t, func(since time.Time) (n int, err error) {
		err = pool.QueryRow(ctx, `SELECT count(DISTINCT job) FROM run_audit WHERE at > $1 AND attempt = 1`, since).Scan(&n)
		return n, err
	})
	afterInstant(first)
	afterInstant(db.now())
	// The old node may lead: stop the leader first, then the other; each
	// comes back as this version.
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
		every = append(every, procs[name])
		afterInstant(db.now())
	}
	afterInstant(db.now())
	last := db.now().Add(-2 * time.Second).Truncate(time.Second)

	count := func(job string, at time.Time) (int, string, error) {
		var n int
		var by string
		err := pool.QueryRow(ctx, `SELECT count(*), coalesce(string_agg(app, ', '), '') FROM run_audit
			WHERE job = $1 AND scheduled_time = $2 AND attempt = 1`, job, at).Scan(&n, &by)
		return n, by, err
	}
	var missed []string
	rows, err := pool.Query(ctx, `SELECT job || ': ' || message FROM events WHERE kind = 'run.missed' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			t.Fatal(err)
		}
		missed = append(missed, m)
	}
	rows.Close()
	findings, bad, err := upgradeFindings(first, last, nil, count, missed)
	if err != nil {
		t.Fatal(err)
	}
	reportFindings(t, fmt.Sprintf("rolling upgrade from %s, instants %s..%s", oldRevision(old),
		first.UTC().Format(time.TimeOnly), last.UTC().Format(time.TimeOnly)), findings, bad)

	// No old node is left: the leader contracts the schema, and says so.
	eventually(t, "the schema contracted once no old node is left", 10*time.Second, func() (bool, error) {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM schema_version_contracted`).Scan(&n)
		return n > 0, err
	})
	logged := false
	for _, d := range every {
		logged = logged || strings.Contains(d.logs.String(), "leader contracted the schema")
	}
	if !logged {
		t.Error("no node logged the contraction")
	}
}

// TestSQLiteUpgrade is the same upgrade for a single SQLite node: the
// previous version runs the jobs on a data directory and stops, this
// version starts on the same directory, and every instant from before the
// stop to after the restart has exactly one run.
func TestSQLiteUpgrade(t *testing.T) {
	old := os.Getenv("ALMANAC_UPGRADE_FROM")
	if old == "" {
		t.Skip("set ALMANAC_UPGRADE_FROM to a previous version's binary (scripts/mixed-upgrade does)")
	}
	bin := almanacBinary(t)
	ctx := context.Background()
	data := t.TempDir()
	d := startDaemon(t, old, data)
	putUpgradeJobs(t, d.url, 1000)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, sqlitestore.FileName)+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// Each step waits until every job has a run of an instant after since.
	afterInstant := afterEveryJob(t, func(since time.Time) (n int, err error) {
		err = db.QueryRowContext(ctx, `SELECT count(DISTINCT job) FROM runs WHERE attempt = 1 AND scheduled_time > ?`,
			since.UnixMicro()).Scan(&n)
		return n, err
	})
	first := time.Now().Truncate(10 * time.Second).Add(10 * time.Second)
	afterInstant(first)
	stopped := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done
	var before, maxID int
	if err := db.QueryRowContext(ctx, `SELECT count(*), max(id) FROM runs`).Scan(&before, &maxID); err != nil {
		t.Fatal(err)
	}
	d = startDaemon(t, bin, data)
	serving := time.Now()
	afterInstant(time.Now())
	afterInstant(time.Now())
	last := time.Now().Add(-2 * time.Second).Truncate(time.Second)
	count := func(job string, at time.Time) (int, string, error) {
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE job = ? AND scheduled_time = ? AND attempt = 1`,
			job, at.UnixMicro()).Scan(&n)
		return n, "the node", err
	}
	// While no daemon runs, instants are caught up (the latest) or
	// recorded missed, as after any downtime; they are not checked. Every
	// other instant has exactly one run, and every run the old version
	// recorded is still there.
	down := func(at time.Time) bool {
		return at.After(stopped.Add(-time.Second)) && at.Before(serving.Add(time.Second))
	}
	findings, bad, err := upgradeFindings(first, last, down, count, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE id <= ?`, maxID).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if kept < before {
		findings = append(findings, fmt.Sprintf("lost history: %d runs before the upgrade, %d after", before, kept))
		bad += before - kept
	}
	reportFindings(t, fmt.Sprintf("SQLite upgrade from %s, instants %s..%s", oldRevision(old),
		first.UTC().Format(time.TimeOnly), last.UTC().Format(time.TimeOnly)), findings, bad)
	if !strings.Contains(d.logs.String(), "schema migrated") {
		t.Errorf("this version logged no migration of the old data (want one line per migration)")
	}
}

// TestServeRefusesContractedSchema: a binary older than the schema's last
// contraction (a downgrade) refuses to start with its own exit status,
// the one the systemd unit lists in RestartPreventExitStatus=, instead of
// failing (and being restarted) like any other error.
func TestServeRefusesContractedSchema(t *testing.T) {
	bin := almanacBinary(t)
	data := t.TempDir()
	d := startDaemon(t, bin, data)
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_version_contracted (version) VALUES (999)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cmd := exec.Command(bin, "serve", "--data", data, "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != cli.ExitSchemaTooNew {
		t.Fatalf("serve on a schema contracted past it: %v, want exit status %d\n%s", err, cli.ExitSchemaTooNew, out)
	}
	if !strings.Contains(string(out), "contracted at 999") {
		t.Errorf("the refusal does not say why:\n%s", out)
	}
}

// TestUpgradeFindings: the upgrade tests' check names every lost instant
// (consecutive ones as one range per job) and every doubled one.
func TestUpgradeFindings(t *testing.T) {
	first := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	last := first.Add(20 * time.Second)
	count := func(job string, at time.Time) (int, string, error) {
		switch {
		case job == "sec-01" && at.After(first.Add(4*time.Second)) && at.Before(first.Add(8*time.Second)):
			return 0, "", nil
		case job == "ten-02" && at.Equal(first.Add(10*time.Second)):
			return 2, "almanac-old, almanac-new", nil
		}
		return 1, "almanac-new", nil
	}
	lines, bad, err := upgradeFindings(first, last, nil, count, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"lost: sec-01 from 12:00:05 to 12:00:07: 3 instants without a run",
		"doubled: ten-02 at 12:00:10 has 2 runs (inserted by almanac-old, almanac-new)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") || bad != 4 {
		t.Fatalf("findings (%d bad):\n%s\nwant (4 bad):\n%s", bad, strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
