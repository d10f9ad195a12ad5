package puppetsched

import (
	"time"

	"github.com/almanac-sh/almanac/internal/weekly"
)

// WeeklyWindows is the default [WindowFunc]: it builds a merged weekly
// calendar (the same one `almanac windows` uses for Zincati fragments) whose
// wall-clock windows are read in loc.
func WeeklyWindows(specs []WindowSpec, loc *time.Location) (Window, error) {
	ws := make([]weekly.Window, 0, len(specs))
	for _, sp := range specs {
		w, err := weekly.ParseWindow(sp.Days, sp.StartTime, sp.LengthMinutes)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return weekly.NewCalendar(loc, ws...), nil
}
