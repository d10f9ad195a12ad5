// Package manifestjob turns the `job` resources of a compiled catalog into
// job specs for the job controller, and the schedules they name into gates.
//
// Each job resource becomes a store.JobSpec (source manifest) checked with
// the controller's own validation and cron parser; every problem is
// reported as "file:line:col: message" at the resource. A `schedule =>`
// metaparameter names a schedule resource of the catalog or a built-in
// one; it becomes a job.Gate. require/before (and notify/subscribe and the
// chaining arrows, which order jobs the same way) between two jobs become
// the specs' Requires and Before lists; a relationship between a job and a
// resource of another type is an error, because a job's run cannot wait
// for an apply.
//
// Gates are pure functions of time. A Puppet schedule's period and repeat
// limit how often a resource is applied since it was last checked; a job's
// cron already says how often it runs, and the job controller has no
// "last checked" to give, so a schedule with a period other than never
// cannot gate a job (the built-in schedules puppet, hourly, daily, weekly
// and monthly included). range, weekday, windows and time_zone can: the
// gate is open at t exactly when the schedule matches at t.
package manifestjob
