package webui

import (
	"html/template"
	"net/http"

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
		cal := weekCalendar{
			Label:  win.Name + " (" + zoneName(win.Zone) + "): open periods of the week",
			Blocks: win.Intervals,
			Now:    weekMinute(now, zoneOf(win.Zone)),
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
}

func (s *server) resources(w http.ResponseWriter, r *http.Request) {
	now := s.cfg.Clock.Now()
	rs, err := s.cfg.Backend.Resources(r.Context())
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	out := make([]resourceView, len(rs))
	for i, res := range rs {
		cal := weekCalendar{
			Label:  res.Name + " (" + zoneName(res.Zone) + "): scheduled running periods, starts and stops",
			Blocks: runningPeriods(res.StartTimes, res.StopTimes),
			Starts: res.StartTimes, Stops: res.StopTimes,
			Now: -1,
		}
		if res.Zone != "" {
			cal.Now = weekMinute(now, zoneOf(res.Zone))
		}
		out[i] = resourceView{Resource: res, Calendar: cal.render()}
	}
	s.render(w, r, http.StatusOK, "resources", "", s.newPage(r, "Resources", "resources", out))
}

func zoneName(z string) string {
	if z == "" {
		return "no zone"
	}
	return z
}
