package webui

import "slices"

// Job states the jobs list filters by (JobQuery.State).
const (
	// JobStateFailing: the latest finished run failed (Job.Failing).
	JobStateFailing = "failing"
	// JobStateSuspended: the job is suspended.
	JobStateSuspended = "suspended"
	// JobStateRunning: a run of the job is executing now.
	JobStateRunning = "running"
	// JobStateWaiting: a run of the job waits for its schedule gate.
	JobStateWaiting = "waiting"
	// JobStateMissing: every recent finished run was missed (Job.Missing).
	JobStateMissing = "missing"
)

// JobStates are the state filters the jobs list offers, in its order,
// with their labels.
var JobStates = []struct{ Value, Label string }{
	{"", "any state"},
	{JobStateFailing, "failing"},
	{JobStateMissing, "missing (every recent fire missed)"},
	{JobStateSuspended, "suspended"},
	{JobStateRunning, "running"},
	{JobStateWaiting, "waiting on a gate"},
}

// validJobState reports whether s is a state the jobs list filters by.
func validJobState(s string) bool {
	for _, st := range JobStates {
		if st.Value == s {
			return true
		}
	}
	return false
}

// Running returns how many of the job's active runs execute now.
func (j Job) Running() int { return len(j.Active) - len(j.Pending) }

// InState reports whether the job is in the state a JobQuery.State names
// (every job is in state "").
func (j Job) InState(state string) bool {
	switch state {
	case "":
		return true
	case JobStateFailing:
		return j.Failing()
	case JobStateMissing:
		return j.Missing()
	case JobStateSuspended:
		return j.Suspended
	case JobStateRunning:
		return j.Running() > 0
	case JobStateWaiting:
		return j.Gate != "" && len(j.Pending) > 0
	}
	return false
}

// Paginate cuts one page of limit names out of the names that match a
// query, sorted in order o: those after after in that order. It fills the
// page's Total, Offset, Prev, HasPrev and Next, and returns the names on
// the page. A Backend uses it when it has the whole sorted list of
// matches. In the order by name a name no longer listed still places the
// page where it would be; in the other orders, whose place depends on
// the job, such a name starts the list again.
func Paginate(names []string, after string, limit int, o JobSort, p *JobPage) []string {
	p.Total = len(names)
	start := 0
	if after != "" {
		if o.ByName() {
			var found bool
			start, found = slices.BinarySearchFunc(names, after, JobOrder(o.Desc))
			if found {
				start++
			}
		} else if i := slices.Index(names, after); i >= 0 {
			start = i + 1
		}
	}
	if limit <= 0 {
		limit = len(names)
	}
	p.Offset = start
	end := min(start+limit, len(names))
	if end < len(names) && end > start {
		p.Next = names[end-1]
	}
	if start > 0 {
		p.HasPrev = true
		if prev := start - limit; prev > 0 {
			p.Prev = names[prev-1]
		}
	}
	return slices.Clip(names[start:end])
}

// JobOrder is the order of the jobs list by name: names in natural order
// (backup-2 before backup-10), or its reverse when desc is set.
func JobOrder(desc bool) func(a, b string) int {
	if desc {
		return func(a, b string) int { return NaturalCompare(b, a) }
	}
	return NaturalCompare
}
