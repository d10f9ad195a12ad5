package webui

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// The keys the jobs list sorts by (JobSort.Key, ?sort= without its "-").
const (
	// JobSortName: names in natural order (backup-2 before backup-10).
	JobSortName = "name"
	// JobSortNext: the next fire, soonest first; jobs without one
	// (suspended, manual only, waves paused) last.
	JobSortNext = "next"
	// JobSortStatus: the status, in JobStatusOrder (those that need
	// attention first).
	JobSortStatus = "status"
)

// JobStatusOrder is the order ?sort=status lists jobs in, most in need of
// attention first: failing (the latest finished runs failed), partly
// failing (a node failed in the latest wave), missing (every recent fire
// was missed), waiting (a run has not started yet), running, scheduled
// (nothing wrong, nothing active) and suspended (deliberately off).
var JobStatusOrder = []string{"failing", "partly-failing", "missing", JobStateWaiting, JobStateRunning, "scheduled", JobStateSuspended}

// JobSort is an order of the jobs list: a key and its direction. The zero
// JobSort is by name, ascending.
type JobSort struct {
	// Key is JobSortName (or empty), JobSortNext or JobSortStatus.
	Key string
	// Desc reverses the whole order, ties included.
	Desc bool
}

// ParseJobSort reads a ?sort= value: a key, or a key after "-" for its
// reverse; "" is by name. ok is false for anything else.
func ParseJobSort(s string) (o JobSort, ok bool) {
	if len(s) > 0 && s[0] == '-' {
		o.Desc, s = true, s[1:]
	}
	switch s {
	case "", JobSortName:
		if s == "" && o.Desc {
			return JobSort{}, false
		}
		o.Key = JobSortName
	case JobSortNext, JobSortStatus:
		o.Key = s
	default:
		return JobSort{}, false
	}
	return o, true
}

// String is the order as ?sort= writes it: "name", "-next".
func (o JobSort) String() string {
	k := cmp.Or(o.Key, JobSortName)
	if o.Desc {
		return "-" + k
	}
	return k
}

// ByName reports whether the order is by name alone.
func (o JobSort) ByName() bool { return o.Key == "" || o.Key == JobSortName }

// JobKey is what the jobs list sorts a job by.
type JobKey struct {
	Name string
	// Next is the job's next fire (Job.UpcomingFire); zero when none.
	Next time.Time
	// Status is the job's place in JobStatusOrder (Job.StatusRank).
	Status int
}

// KeyOf returns what the jobs list sorts j by.
func KeyOf(j Job) JobKey {
	return JobKey{Name: j.Name, Next: j.UpcomingFire(), Status: j.StatusRank()}
}

// Compare orders two jobs' keys: by the key, ties by name in natural
// order, and the whole reversed when Desc is set. Names are unique, so
// no two jobs compare equal and paging through the order is stable.
func (o JobSort) Compare(a, b JobKey) int {
	c := 0
	switch o.Key {
	case JobSortNext:
		switch {
		case a.Next.IsZero() != b.Next.IsZero():
			c = -1 // the one with a next fire first
			if a.Next.IsZero() {
				c = 1
			}
		default:
			c = a.Next.Compare(b.Next)
		}
	case JobSortStatus:
		c = cmp.Compare(a.Status, b.Status)
	}
	if c == 0 {
		c = NaturalCompare(a.Name, b.Name)
	}
	if o.Desc {
		return -c
	}
	return c
}

// UpcomingFire is the fire the jobs list shows and sorts by: NextFire,
// or none (zero) while the job is suspended or its waves are paused, as
// then no run will start at it.
func (j Job) UpcomingFire() time.Time {
	if j.Suspended || j.WavePaused {
		return time.Time{}
	}
	return j.NextFire
}

// Status is the job's status as ?sort=status orders it, one of
// JobStatusOrder: its Health, and for a job that is only scheduled,
// whether a run of it waits or runs.
func (j Job) Status() string {
	h := j.Health()
	if h != "scheduled" {
		return h
	}
	switch {
	case len(j.Pending) > 0:
		return JobStateWaiting
	case j.Running() > 0:
		return JobStateRunning
	}
	return h
}

// StatusRank is the job's Status's place in JobStatusOrder.
func (j Job) StatusRank() int { return slices.Index(JobStatusOrder, j.Status()) }

// sortError is the message for a ?sort= value that is not one.
func sortError(s string) string {
	return "sort= is name, next or status, or one of them after \"-\" for the reverse; " + strconv.Quote(s) + " is none of these."
}
