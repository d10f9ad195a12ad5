// Package kubeexec is the job executor that runs each run of a job with a
// `kubernetes` attribute as one batch/v1 Job: it creates the Job from the
// job's template under a name derived from the job, the scheduled instant
// and the attempt (so a second creation adopts the first), follows it and
// its Pods through informers, streams the Pods' logs into the run's
// output, deletes it to stop the run and prunes the finished Jobs beyond
// the job's history limits. A restarted daemon attaches to the Jobs of
// its previous life by name. docs/kubernetes.md describes the behaviour.
package kubeexec
