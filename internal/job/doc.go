// Package job is almanac's job controller: it turns job specs (a cron
// expression or a one-shot instant, plus policies) into runs in the store
// and executes them, the way the Kubernetes CronJob controller turns a
// CronJob into Jobs, for one machine or several sharing a database.
//
// One goroutine (Controller.Run) owns the schedule. It keeps a heap of jobs
// keyed by the instant each next needs attention and sleeps on a single
// clock timer until the earliest one, or until a job changes or a run ends;
// it never polls. For each job it compares the store's last schedule time
// with now:
//
//   - The instants that came due are counted exactly (Counter.Count, a
//     binary search for the latest, no enumeration and no cap). The latest
//     one still inside starting_deadline_seconds becomes a run; all others
//     become one run.missed event with their count and first/last instants.
//   - The run is inserted with the last schedule time in one transaction,
//     and runs are unique on (job, instant, target, attempt), so repeated ticks,
//     restarts and a second controller can never create a second run.
//   - A new run is held while its schedule gate is closed or a required
//     job's run for the same instant has not succeeded; it ends as missed if
//     the starting deadline passes first. Then the concurrency policy
//     applies (Forbid skips, Replace kills the active run's process group)
//     and the run is released to the workers.
//
// Released runs are claimed (RunClaim) and executed by Exec in their own
// process group, with ALMANAC_JOB, ALMANAC_RUN_ID and ALMANAC_SCHEDULED_TIME
// in the environment; a timeout or a kill sends SIGTERM, then SIGKILL after
// a grace period. A failed attempt is retried with exponential backoff up
// to backoff_limit times; history beyond the limits is pruned. Runs left
// running by a crashed process are found at start-up (and, across nodes,
// by missing heartbeats) and failed or retried.
//
// All time comes from an injected clock.Clock. See docs/jobs.md.
package job
