package webui

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

type windowView struct {
	Window
	Calendar template.HTML
}

func (s *server) windows(w http.ResponseWriter, r *http.Request) {
	now := s.cfg.Clock.Now()
	ws, err := s.cfg.Backend.Windows(r.Context(), now)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	out := make([]windowView, len(ws))
	for i, win := range ws {
		loc := zoneOf(win.Zone)
		cal := weekCalendar{
			Label:  win.Name + " (" + zoneName(win.Zone) + "): open periods of the week",
			Blocks: win.Intervals,
			Now:    weekMinute(now, loc),
			Monday: mondayOf(now, loc),
		}
		out[i] = windowView{Window: win, Calendar: cal.render()}
	}
	groups, err := s.cfg.Backend.RebootGroups(r.Context())
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "windows", "", s.newPage(r, "Windows", "windows", windowsData{Windows: out, RebootGroups: groups}))
}

// windowsData is the windows page: the calendars and the reboot groups.
type windowsData struct {
	Windows      []windowView
	RebootGroups []apitype.RebootGroup
}

type resourceView struct {
	Resource
	Calendar template.HTML
	// OutOfStep says how the resource's state disagrees with its
	// schedule now; empty when it agrees or the schedule cannot say.
	OutOfStep string
}

// resourcesData is the resources page: the resources the filter keeps.
type resourcesData struct {
	Resources []resourceView
	// Filter keeps the resources whose displayed name or id contains it.
	Filter string
	// Total counts all resources, filtered or not.
	Total int
}

// outOfStep compares a resource's state with what its schedule says now.
// almanac acts only at transitions, so a resource started or stopped by
// hand stays so until the next one: worth a warning, not an action.
func outOfStep(res Resource, blocks []Interval, now int) string {
	if len(blocks) == 0 || now < 0 || res.Validation == "errors" {
		return ""
	}
	inside := false
	for _, b := range blocks {
		if now >= b.Start && now < b.End {
			inside = true
		}
	}
	switch {
	case inside && !res.Up():
		msg := res.Name + " is " + res.State + " inside a period its schedule keeps it running"
		if !res.NextStart.IsZero() {
			msg += "; almanac acts only at transitions, so it stays " + res.State + " until it is started by hand or the next start"
		}
		return msg
	case !inside && res.Up():
		return res.Name + " is running outside the periods its schedule keeps it running; almanac stops it only at the next stop"
	}
	return ""
}

func (s *server) resources(w http.ResponseWriter, r *http.Request) {
	now := s.cfg.Clock.Now()
	rs, err := s.cfg.Backend.Resources(r.Context())
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d := resourcesData{Filter: strings.TrimSpace(r.URL.Query().Get("q")), Total: len(rs)}
	needle := strings.ToLower(d.Filter)
	for _, res := range rs {
		if needle != "" && !strings.Contains(strings.ToLower(res.Name), needle) && !strings.Contains(strings.ToLower(res.ID), needle) {
			continue
		}
		cal := weekCalendar{
			Label:  res.Name + " (" + zoneName(res.Zone) + "): scheduled running periods, starts and stops",
			Blocks: runningPeriods(res.StartTimes, res.StopTimes),
			Starts: res.StartTimes, Stops: res.StopTimes,
			Now: -1,
		}
		if res.Zone != "" {
			cal.Now = weekMinute(now, zoneOf(res.Zone))
			cal.Monday = mondayOf(now, zoneOf(res.Zone))
		}
		d.Resources = append(d.Resources, resourceView{Resource: res, Calendar: cal.render(), OutOfStep: outOfStep(res, cal.Blocks, cal.Now)})
	}
	s.render(w, r, http.StatusOK, "resources", "", s.newPage(r, "Resources", "resources", d))
}

func zoneName(z string) string {
	if z == "" {
		return "no zone"
	}
	return z
}
