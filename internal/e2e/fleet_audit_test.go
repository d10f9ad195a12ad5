package e2e

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/weekly"
)

// This file holds TestFleetJobs's evidence and checks: every version of
// every run row (a trigger copies each insert and update into run_log, so
// pruning and later updates lose nothing), the run.missed events, and the
// log the jobs' commands append to.

// installRunLog makes PostgreSQL copy every inserted or updated run row,
// without its output, into run_log with the writing node's
// application_name and the database clock.
func installRunLog(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `
		CREATE TABLE run_log (seq bigint GENERATED ALWAYS AS IDENTITY, id bigint, op text, app text, at timestamptz, r jsonb);
		CREATE FUNCTION run_log() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		    INSERT INTO run_log (id, op, app, at, r)
		    VALUES (NEW.id, TG_OP, current_setting('application_name'), clock_timestamp(), to_jsonb(NEW) - 'output');
		    RETURN NULL;
		END $$;
		CREATE TRIGGER run_log AFTER INSERT OR UPDATE ON runs FOR EACH ROW EXECUTE FUNCTION run_log();`); err != nil {
		t.Fatal(err)
	}
}

// fleetRun is a run's latest version in run_log.
type fleetRun struct {
	ID                         int64
	Job, Target, Node, State   string
	Instant                    time.Time
	Attempt                    int
	Ready, Started, Finished   time.Time // zero: not (yet)
	InsertedBy, Err, LastWrite string
	ExitCode                   *int
}

// execLine is one line of the commands' log: a start or an end.
type execLine struct {
	end                bool
	node, job, instant string
	attempt            int
	runID              int64
	at                 time.Time
	// note is the last field, if any: "term", or "exit=N".
	note string
}

// missedRange is the instants a run.missed event gave up.
type missedRange struct {
	job         string
	first, last time.Time
	count       int64
	at          time.Time
}

// fleetAudit is what the checks look at.
type fleetAudit struct {
	f         *fleetRig
	takeovers []takeover
	runs      []fleetRun
	exec      []execLine
	missed    []missedRange
	errs      map[string]int // failures per kind, to report only the first few
}

func (a *fleetAudit) window(job, node string) (string, *weekly.Calendar) {
	return a.f.window(job, node)
}

func (a *fleetAudit) opens(job, node string, at time.Time) (time.Time, bool) {
	return a.f.opens(job, node, at)
}

// maxErrs is how many failures of one kind are reported one by one.
const maxErrs = 10

// errorf reports a failure of a kind; past maxErrs of a kind it only
// counts them, for flush.
func (a *fleetAudit) errorf(t *testing.T, kind, format string, args ...any) {
	t.Helper()
	if a.errs == nil {
		a.errs = map[string]int{}
	}
	if a.errs[kind]++; a.errs[kind] <= maxErrs {
		t.Errorf(format, args...)
	}
}

// flush reports how many failures of each kind were not shown.
func (a *fleetAudit) flush(t *testing.T) {
	t.Helper()
	for kind, n := range a.errs {
		if n > maxErrs {
			t.Errorf("... and %d more: %s", n-maxErrs, kind)
		}
	}
}

// loadFleetAudit reads run_log, the run.missed events and the command log.
func loadFleetAudit(t *testing.T, pool *pgxpool.Pool, f *fleetRig, takeovers []takeover) *fleetAudit {
	t.Helper()
	ctx := context.Background()
	a := &fleetAudit{f: f, takeovers: takeovers}
	rows, err := pool.Query(ctx, `
		SELECT DISTINCT ON (l.id) l.id, l.r->>'job', (l.r->>'scheduled_time')::timestamptz, (l.r->>'attempt')::int,
		       coalesce(l.r->>'target', ''), coalesce(l.r->>'node', ''), l.r->>'state',
		       (l.r->>'ready_at')::timestamptz, (l.r->>'started_at')::timestamptz, (l.r->>'finished_at')::timestamptz,
		       coalesce(l.r->>'error', ''), l.app, (l.r->>'exit_code')::int,
		       (SELECT i.app FROM run_log i WHERE i.id = l.id AND i.op = 'INSERT' ORDER BY i.seq LIMIT 1)
		  FROM run_log l ORDER BY l.id, l.seq DESC`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r fleetRun
		var ready, started, finished *time.Time
		var ins *string
		if err := rows.Scan(&r.ID, &r.Job, &r.Instant, &r.Attempt, &r.Target, &r.Node, &r.State,
			&ready, &started, &finished, &r.Err, &r.LastWrite, &r.ExitCode, &ins); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct {
			dst *time.Time
			src *time.Time
		}{{&r.Ready, ready}, {&r.Started, started}, {&r.Finished, finished}} {
			if p.src != nil {
				*p.dst = *p.src
			}
		}
		if ins != nil {
			r.InsertedBy = *ins
		}
		a.runs = append(a.runs, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	// Instants given up without a run (a run that ends missed has its own
	// event, with its id, and its own row).
	rows, err = pool.Query(ctx, `SELECT job, time, data::text FROM events WHERE kind = 'run.missed' AND run_id = 0 ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m missedRange
		var data *string
		if err := rows.Scan(&m.job, &m.at, &data); err != nil {
			t.Fatal(err)
		}
		var d struct {
			Count       int64
			First, Last time.Time
		}
		if data == nil || json.Unmarshal([]byte(*data), &d) != nil || d.First.IsZero() {
			t.Errorf("run.missed event of %s at %s without a readable range: %v", m.job, m.at, data)
			continue
		}
		m.first, m.last, m.count = d.First, d.Last, d.Count
		a.missed = append(a.missed, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	logPath := f.log
	file, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for n := 1; sc.Scan(); n++ {
		e, err := parseExecLine(sc.Text())
		if err != nil {
			t.Errorf("%s:%d: %v", logPath, n, err)
			continue
		}
		a.exec = append(a.exec, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return a
}

// parseExecLine reads "start|end NODE JOB INSTANT ATTEMPT RUN_ID EPOCH [term]".
func parseExecLine(s string) (execLine, error) {
	f := strings.Fields(s)
	if len(f) < 7 || len(f) > 8 || (f[0] != "start" && f[0] != "end") {
		return execLine{}, fmt.Errorf("malformed line %q", s)
	}
	e := execLine{end: f[0] == "end", node: f[1], job: f[2], instant: f[3]}
	var err1, err2, err3 error
	e.attempt, err1 = strconv.Atoi(f[4])
	e.runID, err2 = strconv.ParseInt(f[5], 10, 64)
	sec, err3 := strconv.ParseFloat(f[6], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return execLine{}, fmt.Errorf("malformed line %q", s)
	}
	e.at = time.Unix(0, int64(sec*1e9))
	if len(f) == 8 {
		e.note = f[7]
	}
	return e, nil
}

func (e execLine) String() string {
	what := "start"
	if e.end {
		what = "end"
	}
	return fmt.Sprintf("%s of run %d (%s @%s attempt %d) on %s at %s", what, e.runID, e.job, e.instant, e.attempt, e.node, ts(e.at))
}

// ts formats t for messages.
func ts(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("15:04:05.000")
}

func (r fleetRun) String() string {
	return fmt.Sprintf("run %d (%s @%s attempt %d target %q node %q, %s, inserted by %s, ready %s started %s finished %s, error %q)",
		r.ID, r.Job, r.Instant.UTC().Format(time.TimeOnly), r.Attempt, r.Target, r.Node, r.State, r.InsertedBy,
		ts(r.Ready), ts(r.Started), ts(r.Finished), r.Err)
}

// checkAtMostOnce checks that no (job, instant, target) has two first
// attempts, and none two started first attempts; that every run of the
// fleet jobs names its target and ran there only; and, from the commands'
// log, that no (job, instant, node, attempt) was executed twice and that
// every succeeded run was executed once, by its target.
func (a *fleetAudit) checkAtMostOnce(t *testing.T) {
	t.Helper()
	type key struct {
		job, instant, target string
		attempt              int
	}
	first := map[key][]fleetRun{}
	for _, r := range a.runs {
		if r.Target == "" {
			a.errorf(t, "untargeted runs", "untargeted run of a fleet job: %v", r)
			continue
		}
		if r.Node != "" && r.Node != r.Target {
			a.errorf(t, "runs claimed by another node", "run claimed by %s, not its target: %v", r.Node, r)
		}
		k := key{r.Job, r.Instant.UTC().Format(time.RFC3339), r.Target, r.Attempt}
		first[k] = append(first[k], r)
	}
	for k, rs := range first {
		started := 0
		for _, r := range rs {
			if !r.Started.IsZero() {
				started++
			}
		}
		if len(rs) > 1 {
			a.errorf(t, "duplicate runs", "%s at %s on %s: %d runs of attempt %d (%d started): %v", k.job, k.instant, k.target, len(rs), k.attempt, started, rs)
		}
	}
	starts := map[key][]execLine{}
	byRun := map[int64][]execLine{}
	for _, e := range a.exec {
		if e.end {
			continue
		}
		k := key{e.job, e.instant, e.node, e.attempt}
		starts[k] = append(starts[k], e)
		byRun[e.runID] = append(byRun[e.runID], e)
	}
	for k, es := range starts {
		if len(es) > 1 {
			a.errorf(t, "duplicate executions", "%s at %s on %s attempt %d executed %d times: %v", k.job, k.instant, k.target, k.attempt, len(es), es)
		}
	}
	for _, r := range a.runs {
		if r.State != "succeeded" {
			continue
		}
		es := byRun[r.ID]
		if len(es) != 1 || es[0].node != r.Target {
			a.errorf(t, "succeeded runs not executed once by their target", "%v: executed %d times (want once, on its target): %v", r, len(es), es)
		}
	}
}

// checkOutcomes checks job's finished runs against its commands' own log:
// each run that succeeded or failed ended exactly once, by the command's
// own account, with the exit status recorded, whatever was killed around
// it; and no command was started twice for one run.
func (a *fleetAudit) checkOutcomes(t *testing.T, job string) {
	t.Helper()
	ends := map[int64][]execLine{}
	starts := map[int64]int{}
	for _, e := range a.exec {
		if e.job != job {
			continue
		}
		if e.end {
			ends[e.runID] = append(ends[e.runID], e)
		} else {
			starts[e.runID]++
		}
	}
	checked, survived := 0, 0
	for _, r := range a.runs {
		if r.Job != job {
			continue
		}
		if starts[r.ID] > 1 {
			a.errorf(t, "commands executed twice", "%v: its command started %d times", r, starts[r.ID])
		}
		if r.State != "succeeded" && r.State != "failed" {
			continue
		}
		es := ends[r.ID]
		want := ""
		if r.ExitCode != nil {
			want = fmt.Sprintf("exit=%d", *r.ExitCode)
		}
		if len(es) != 1 || es[0].note != want {
			a.errorf(t, "outcomes not the command's", "%v recorded %q: the command logged %v", r, want, es)
			continue
		}
		checked++
		if a.killedDuring(r.Target, r.Started, r.Finished) {
			survived++
		}
	}
	t.Logf("%s: %d recorded outcomes equal their commands' exit status, %d of them of commands whose node was killed with SIGKILL while they ran",
		job, checked, survived)
}

// killedDuring reports whether node's daemon was killed between from and to.
func (a *fleetAudit) killedDuring(node string, from, to time.Time) bool {
	for _, l := range a.f.lives[node] {
		if !l.to.IsZero() && l.to.After(from) && l.to.Before(to) {
			return true
		}
	}
	return false
}

// checkNoneLost checks that for every instant of job from first to last
// (period apart) every node that lived throughout [instant, instant +
// deadline] and whose window for the job opened before its end has a
// started run. (A window opening exactly at the deadline is left to
// checkMissed: the run may start then or be missed, for the right reason.) An instant a leader's takeover left
// without a run (a run.missed event covers it, and it lies between the
// leader's death and a few seconds after the election) is excused, as a
// controller catches up only the latest instant it missed; it returns
// how many instants that excused.
func (a *fleetAudit) checkNoneLost(t *testing.T, job string, first, last time.Time, period, deadline time.Duration) int {
	t.Helper()
	started := map[string]fleetRun{}
	for _, r := range a.runs {
		if r.Job == job && !r.Started.IsZero() {
			started[r.Instant.UTC().Format(time.RFC3339)+" "+r.Target] = r
		}
	}
	excused, checked, lost, superseded := 0, 0, 0, 0
	for at := first; !at.After(last); at = at.Add(period) {
		if a.excused(job, at) {
			excused++
			continue
		}
		for _, n := range fleetNodes {
			if !a.f.aliveThroughout(n.name, at, at.Add(deadline)) {
				continue
			}
			if open, ok := a.opens(job, n.name, at); !ok || !open.Before(at.Add(deadline)) {
				continue
			}
			checked++
			if _, ok := started[at.UTC().Format(time.RFC3339)+" "+n.name]; !ok {
				if a.superseded(job, at, n.name) {
					// catch_up latest: a newer instant of the node went
					// instead (checkMissed checks the reason).
					superseded++
					continue
				}
				lost++
				a.errorf(t, job+" lost runs", "%s at %s on %s: no started run, though %s lived until the deadline; its runs: %v",
					job, at.UTC().Format("15:04:05"), n.name, n.name, a.runsOf(job, at, n.name))
			}
		}
	}
	if lost > 0 || checked == 0 {
		t.Errorf("%s: %d of %d (instant, live node) pairs from %s to %s without a started run", job, lost, checked, ts(first), ts(last))
	}
	for _, m := range a.missed {
		if m.job == job && !a.inTakeover(m.first) {
			a.errorf(t, job+" missed events", "%s: %d instants %s..%s recorded missed (at %s) outside any leader takeover", job, m.count, ts(m.first), ts(m.last), ts(m.at))
		}
	}
	t.Logf("%s: %d (instant, live node) pairs checked, %d superseded by a newer instant (catch_up latest), %d instants missed during takeovers",
		job, checked, superseded, excused)
	return excused
}

// checkMissed checks that every run that ended missed without starting
// gives a reason that is true by the test's own record: its node was
// down (killed) before its deadline; its window (the right one) was
// closed when the run was given up and opened no earlier than the
// deadline; it waited for its turn in a job with max_parallel while the
// wave's slots were taken; or its job had been suspended at the end.
func (a *fleetAudit) checkMissed(t *testing.T, deadlines map[string]time.Duration, suspended time.Time) {
	t.Helper()
	type slot struct{ from, to time.Time }
	busy := map[string][]slot{} // per instant of the rolling job: released or running runs
	for _, r := range a.runs {
		if r.Job == fleetRolling && !r.Ready.IsZero() {
			busy[r.Instant.UTC().Format(time.RFC3339)] = append(busy[r.Instant.UTC().Format(time.RFC3339)], slot{r.Ready, r.Finished})
		}
	}
	missed := 0
	for _, r := range a.runs {
		if r.State != "missed" || !r.Started.IsZero() {
			continue
		}
		missed++
		end := r.Instant.Add(deadlines[r.Job])
		wrong := func(why string, args ...any) {
			t.Helper()
			a.errorf(t, "missed runs with a false reason", "%v: %s", r, fmt.Sprintf(why, args...))
		}
		early := r.Finished.Before(end)
		switch {
		case r.Err == fmt.Sprintf("node %s was down until the starting deadline", r.Target):
			if a.f.aliveThroughout(r.Target, r.Instant, end) {
				wrong("%s served from before the instant until after the deadline %s", r.Target, ts(end))
			} else if early {
				wrong("given up before the deadline %s", ts(end))
			}
		case strings.HasPrefix(r.Err, "window "):
			w, _ := a.window(r.Job, r.Target)
			if r.Err != fmt.Sprintf("window %q of node %s does not open before the starting deadline", w, r.Target) {
				wrong("want the window %q", w)
				break
			}
			if open, ok := a.opens(r.Job, r.Target, r.Finished); ok && open.Before(end) {
				wrong("window %s opens at %s, before the deadline %s", w, ts(open), ts(end))
			}
		case r.Err == fmt.Sprintf("the starting deadline passed while node %s waited for its turn", r.Target):
			if r.Job != fleetRolling {
				due, _ := a.opens(r.Job, r.Target, r.Instant)
				wrong("%s has no max_parallel, so no node waits for a turn (its window opened at %s, the deadline was %s)",
					r.Job, ts(due), ts(end))
				break
			}
			taken := 0
			for _, s := range busy[r.Instant.UTC().Format(time.RFC3339)] {
				if !s.from.After(r.Finished) && (s.to.IsZero() || s.to.After(r.Finished)) {
					taken++
				}
			}
			if early || taken < 2 {
				wrong("%d of 2 slots taken when given up (deadline %s)", taken, ts(end))
			}
		case r.Err == fmt.Sprintf("the window of node %s closed before the node could start the run", r.Target):
			// Released while its window was open, not claimed (the node
			// was away), and given up at the deadline with the window shut.
			switch open, ok := a.opens(r.Job, r.Target, r.Finished); {
			case r.Ready.IsZero():
				wrong("the run was never released")
			case early:
				wrong("given up before the deadline %s", ts(end))
			case ok && !open.After(r.Finished):
				wrong("the window was open when the run was given up at %s", ts(r.Finished))
			}
		case strings.HasPrefix(r.Err, supersededPrefix):
			// catch_up latest: given up for a newer instant of the same
			// node, which must exist and be newer.
			at, _, _ := strings.Cut(strings.TrimPrefix(r.Err, supersededPrefix), " ")
			newer, err := time.Parse(time.RFC3339, at)
			switch {
			case err != nil:
				wrong("no instant in the reason")
			case !newer.After(r.Instant):
				wrong("superseded by an instant (%s) that is not newer", ts(newer))
			case len(a.runsOf(r.Job, newer, r.Target)) == 0:
				wrong("no run of %s for the newer instant %s", r.Target, ts(newer))
			}
		case r.Err == "the starting deadline passed while the job was suspended":
			if r.Finished.Before(suspended) {
				wrong("the job was suspended only at %s", ts(suspended))
			}
		default:
			wrong("unexpected reason")
		}
	}
	t.Logf("%d runs missed, each for a true reason unless reported", missed)
}

func (a *fleetAudit) excused(job string, at time.Time) bool {
	for _, m := range a.missed {
		if m.job == job && !at.Before(m.first) && !at.After(m.last) {
			return a.inTakeover(at)
		}
	}
	return false
}

// inTakeover reports whether at lies between a leader's death (less the
// second its last step may not have reached) and a few seconds after the
// next leader held the lease (its first step's reading of the jobs).
func (a *fleetAudit) inTakeover(at time.Time) bool {
	for _, k := range a.takeovers {
		if !at.Before(k.killed.Add(-time.Second)) && !at.After(k.elected.Add(5*time.Second)) {
			return true
		}
	}
	return false
}

// supersededPrefix starts the reason of a run catch_up latest gave up for
// a newer instant of its node.
const supersededPrefix = "superseded by the run for "

// superseded reports whether the run of job for instant at on target was
// given up for a newer instant (catch_up latest).
func (a *fleetAudit) superseded(job string, at time.Time, target string) bool {
	for _, r := range a.runsOf(job, at, target) {
		if r.State == "missed" && strings.HasPrefix(r.Err, supersededPrefix) {
			return true
		}
	}
	return false
}

func (a *fleetAudit) runsOf(job string, at time.Time, target string) []fleetRun {
	var out []fleetRun
	for _, r := range a.runs {
		if r.Job == job && r.Instant.Equal(at) && r.Target == target {
			out = append(out, r)
		}
	}
	return out
}

// interval is one node's stretch inside the rolling job.
type interval struct {
	node     string
	from, to time.Time
}

// maxOverlap returns the largest number of intervals open at one moment
// and one such moment; an interval ending when another starts does not
// overlap it.
func maxOverlap(iv []interval) (int, time.Time) {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, i := range iv {
		edges = append(edges, edge{i.from, 1}, edge{i.to, -1})
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.delta, y.delta)
	})
	n, best, when := 0, 0, time.Time{}
	for _, e := range edges {
		if n += e.delta; n > best {
			best, when = n, e.at
		}
	}
	return best, when
}

// checkRolling checks that never more than two nodes were inside the
// rolling job at once, measured from the commands' log (a start without
// an end lasts until its run's recorded end) and from the runs' started
// and finished times (an unfinished run lasts until end). It returns the
// two largest overlaps.
func (a *fleetAudit) checkRolling(t *testing.T, end time.Time) (fromLog, fromRuns int) {
	t.Helper()
	runByID := map[int64]fleetRun{}
	var dbIv []interval
	for _, r := range a.runs {
		if r.Job != fleetRolling || r.Started.IsZero() {
			continue
		}
		runByID[r.ID] = r
		to := r.Finished
		if to.IsZero() {
			to = end
		}
		dbIv = append(dbIv, interval{r.Target, r.Started, to})
	}
	ends := map[int64]time.Time{}
	for _, e := range a.exec {
		if e.job == fleetRolling && e.end {
			ends[e.runID] = e.at
		}
	}
	var logIv []interval
	for _, e := range a.exec {
		if e.job != fleetRolling || e.end {
			continue
		}
		to, ok := ends[e.runID]
		if !ok {
			to = runByID[e.runID].Finished
		}
		if to.IsZero() {
			to = end
		}
		logIv = append(logIv, interval{e.node, e.at, to})
	}
	fromLog, atLog := maxOverlap(logIv)
	fromRuns, atRuns := maxOverlap(dbIv)
	if fromLog > 2 || fromRuns > 2 {
		t.Errorf("%s: up to %d nodes inside at once by the commands' log (at %s), %d by the runs (at %s); max_parallel is 2",
			fleetRolling, fromLog, ts(atLog), fromRuns, ts(atRuns))
		for _, i := range dbIv {
			t.Logf("run on %s: %s..%s", i.node, ts(i.from), ts(i.to))
		}
	}
	if len(logIv) == 0 {
		t.Errorf("%s: no node ran it", fleetRolling)
	}
	a.logWaves(t)
	return fromLog, fromRuns
}

// checkWindows checks that no run of either job started outside its
// node's window for the job, by the runs' start (the claim) and by the
// commands' log.
func (a *fleetAudit) checkWindows(t *testing.T) {
	t.Helper()
	checked := 0
	for _, r := range a.runs {
		if r.Started.IsZero() {
			continue
		}
		if w, cal := a.window(r.Job, r.Target); cal != nil {
			checked++
			if !cal.Contains(r.Started) {
				a.errorf(t, "runs started outside their window", "%s started outside its window %s: %v", r.Target, w, r)
			}
		}
	}
	for _, e := range a.exec {
		if w, cal := a.window(e.job, e.node); !e.end && cal != nil && !cal.Contains(e.at) {
			a.errorf(t, "commands started outside their window", "%s's command for %s of %s started at %s, outside its window %s",
				e.node, e.instant, e.job, ts(e.at), w)
		}
	}
	if checked == 0 {
		t.Errorf("no run waited for a window")
	}
	t.Logf("%d runs in windows checked", checked)
}
