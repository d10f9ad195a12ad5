package job

import (
	"time"

	"github.com/almanac-sh/almanac/internal/cron"
)

// ParseCron is the ParseFunc of almanac's jobs with the cron engine: the full dialect
// (L, W, #, H, CRON_TZ=, macros, @every) and fast counting of missed
// instants, which the controller uses after downtime. H fields hash the job's
// name, so jobs written with H spread out.
func ParseCron(name, expr string, loc *time.Location) (Schedule, error) {
	if loc == nil {
		loc = time.UTC
	}
	s, err := cron.Parse(expr, cron.WithLocation(loc), cron.WithHashKey(name))
	if err != nil {
		return nil, err
	}
	return s, nil
}
