package apitype

import "time"

// WindowList is GET /api/v1/windows: the daemon's named weekly windows
// (`serve --windows`), each read at the instant At.
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
	// fragments, "demo" for the windows `serve --demo` adds.
	Kind string `json:"kind"`
	// Sources are the fragment files merged into the calendar.
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
