package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// putPeriodicJobs creates jobs job-000, job-001 ... firing every period
// (whole seconds) through the daemon at url.
func putPeriodicJobs(t *testing.T, url string, jobs int, period time.Duration) {
	t.Helper()
	c, err := apiclient.New(url, apiclient.WithToken(e2eToken))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < jobs; i++ {
		if _, _, err := c.JobPut(context.Background(), fmt.Sprintf("job-%03d", i), apitype.JobSpec{
			Cron: fmt.Sprintf("*/%d * * * * *", int(period.Seconds())), Command: apitype.Command{Argv: []string{"true"}}}); err != nil {
			t.Fatal(err)
		}
	}
}

// installRunAudit records, in the table run_audit, which node inserted
// each run (its connections' application_name) and when by the database
// clock, so a test can tell who scheduled what after the runs are pruned.
func installRunAudit(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `
		CREATE TABLE run_audit (run_id bigint, job text, scheduled_time timestamptz, attempt int, app text, at timestamptz);
		CREATE FUNCTION run_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		    INSERT INTO run_audit
		    SELECT id, job, scheduled_time, attempt, current_setting('application_name'), clock_timestamp() FROM new_rows;
		    RETURN NULL;
		END $$;
		CREATE TRIGGER run_audit AFTER INSERT ON runs REFERENCING NEW TABLE AS new_rows
		    FOR EACH STATEMENT EXECUTE FUNCTION run_audit();`); err != nil {
		t.Fatal(err)
	}
}

// checkExactlyOnce checks, from run_audit, that every instant of every job
// from first to last (period apart) got exactly one first attempt and that
// nothing was recorded as missed; it returns the number of instants.
func checkExactlyOnce(t *testing.T, pool *pgxpool.Pool, firstInstant, lastInstant time.Time, period time.Duration, jobs int) int {
	t.Helper()
	ctx := context.Background()
	// Every instant of every job from first to last got exactly one first
	// attempt (read from the audit: finished runs beyond the history limits
	// are pruned from runs); nothing was recorded as missed.
	rows, err := pool.Query(ctx, `
		SELECT j.name, i, count(r.run_id)
		  FROM jobs j
		 CROSS JOIN generate_series($1::timestamptz, $2::timestamptz, $3 * interval '1 second') AS i
		  LEFT JOIN run_audit r ON r.job = j.name AND r.scheduled_time = i AND r.attempt = 1
		 GROUP BY j.name, i
		HAVING count(r.run_id) <> 1
		 ORDER BY 1, 2`, firstInstant, lastInstant, period.Seconds())
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for rows.Next() {
		var job string
		var at time.Time
		var n int
		if err := rows.Scan(&job, &at, &n); err != nil {
			t.Fatal(err)
		}
		if bad++; bad <= 20 {
			t.Errorf("job %s at %s: %d runs, want 1", job, at.UTC().Format(time.RFC3339), n)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	instants := int(lastInstant.Sub(firstInstant)/period) + 1
	var missed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE kind = 'run.missed'`).Scan(&missed); err != nil {
		t.Fatal(err)
	}
	if bad > 0 || missed > 0 {
		// Show who scheduled what, instant by instant, to explain it.
		rows, err := pool.Query(ctx, `SELECT scheduled_time, app, count(*), min(at), max(at) FROM run_audit
			WHERE attempt = 1 GROUP BY 1, 2 ORDER BY 1, 2`)
		if err == nil {
			for rows.Next() {
				var at, first, last time.Time
				var app string
				var n int
				if rows.Scan(&at, &app, &n, &first, &last) == nil {
					t.Logf("instant %s: %d runs by %s, inserted %s..%s", at.UTC().Format(time.TimeOnly), n, app,
						first.UTC().Format("15:04:05.000"), last.UTC().Format("15:04:05.000"))
				}
			}
			rows.Close()
		}
	}
	if bad > 0 || missed > 0 || instants < 5 {
		t.Errorf("%d of %d×%d instants without exactly one run, %d missed events", bad, jobs, instants, missed)
	}
	return instants

}
