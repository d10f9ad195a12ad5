package cron

import (
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// zoneTable is the calendar core's cached offset history of a zone.
type zoneTable = calendar.ZoneTable

// tableFor returns the cached table of loc.
func tableFor(loc *time.Location) *zoneTable { return calendar.TableFor(loc) }
