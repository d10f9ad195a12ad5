package webui

import (
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/fleet"
)

// FleetResource converts a managed resource's status, as the fleet
// scheduler reports it, to the UI's view.
func FleetResource(st fleet.Status) Resource {
	r := Resource{
		ID: st.ID, Name: st.Name, State: string(st.State), Validation: st.Validation, Zone: st.Zone,
		Start: st.Start, Stop: st.Stop, StartTimes: st.StartTimes, StopTimes: st.StopTimes,
		Hibernate: st.Hibernate, Notify: st.Notify, Tags: st.Tags, SeenAt: st.SeenAt,
	}
	if st.NextStart != nil {
		r.NextStart = *st.NextStart
	}
	if st.NextStop != nil {
		r.NextStop = *st.NextStop
	}
	for _, f := range st.Errors {
		r.Errors = append(r.Errors, finding(f))
	}
	for _, f := range st.Warnings {
		r.Warnings = append(r.Warnings, finding(f))
	}
	if rt := st.Retry; rt != nil {
		r.Retry = fmt.Sprintf("%s for %s: %d attempts failed, next at %s, gives up at %s",
			rt.Action, rt.Transition.Format(time.RFC3339), rt.Attempts, rt.Next.Format(time.RFC3339), rt.Deadline.Format(time.RFC3339))
	}
	return r
}

func finding(f fleet.Finding) string {
	if f.Key == "" {
		return f.Message
	}
	return fmt.Sprintf("%s=%q: %s", f.Key, f.Value, f.Message)
}

// FleetEvent converts a managed-resource event to a log entry (the caller
// assigns the ID).
func FleetEvent(e fleet.Event) Event {
	res := e.Resource
	if res == "" {
		res = e.Name
	}
	return Event{Time: e.Time, Kind: string(e.Kind), Resource: res, Message: e.Message}
}
