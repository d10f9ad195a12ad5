package apitype

import "time"

// WindowList is GET /api/v1/windows: the daemon's named weekly windows
// (`serve --windows`) and the Puppet schedules of its manifests
// (`serve --manifests`), each read at the instant At.
type WindowList struct {
	// At is the instant the open/closed state was computed for (now, or
	// the request's ?at=).
	At    time.Time `json:"at"`
	Items []Window  `json:"items"`
}

// Window is one named weekly calendar: the merged windows of one or more
// Zincati-style TOML fragments. Its fields after Sources are those of
// `almanac windows --json`, so the same file reads the same either way.
type Window struct {
	// Name is the file's base name without extension, or the NAME of a
	// NAME=PATH argument.
	Name string `json:"name"`
	// Kind says where the calendar comes from: "zincati" for TOML
	// fragments, "demo" for the windows `serve --demo` adds, "schedule"
	// for a `schedule` resource of the manifests in force.
	Kind string `json:"kind"`
	// Sources are the fragment files merged into the calendar; for a
	// schedule, the file:line:col of its declaration.
	Sources []string `json:"sources"`
	// Inside tells whether At is inside a window.
	Inside bool `json:"inside"`
	// WindowEnd is when the window containing At closes (null when At is
	// outside, or the windows cover the whole week); NextStart is when the
	// next window opens (null when At is inside). Both carry the zone's offset.
	WindowEnd     *time.Time `json:"window_end"`
	NextStart     *time.Time `json:"next_start"`
	WeeklyMinutes int        `json:"weekly_minutes"`
	TimeZone      string     `json:"time_zone"`
	// Windows are the merged open periods of the week, Monday first; a
	// period across Sunday midnight is one entry whose EndMinute passes
	// 10080.
	Windows []WindowSpan `json:"windows"`
	// Summary and Attributes are set for a schedule only: its attributes
	// in words ("range 02:00 - 04:00; weekday Sat, Sun") and as declared.
	// For a schedule, Inside and the spans ignore period, periodmatch and
	// repeat (they depend on when each resource was last checked); a
	// schedule with period never is never inside and has no spans.
	Summary    string         `json:"summary,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// WindowSpan is one open period of a weekly calendar, half-open
// [start, end) on the wall clock of the calendar's zone.
type WindowSpan struct {
	// Start and End read like "Sat 23:30".
	Start string `json:"start"`
	End   string `json:"end"`
	// StartMinute and EndMinute count minutes since Monday 00:00.
	StartMinute int `json:"start_minute"`
	EndMinute   int `json:"end_minute"`
}
