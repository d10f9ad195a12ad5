package fleet_test

import (
	"context"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleet"
)

// A worked example: the demo fleet's web-2 over a Monday in New York, with an
// engineer starting it by hand in the evening and a failing stop on Tuesday.
func Example() {
	demo := fleet.NewDemo()
	clk := clock.NewFake(time.Date(2024, 6, 3, 11, 0, 0, 0, time.UTC)) // 07:00 in New York
	log := fleet.NewMemoryLog(0)
	s, _ := fleet.New(fleet.Config{Source: demo, Clock: clk, Events: log})
	ctx := context.Background()
	step := func(until time.Time) {
		for clk.Now().Before(until) {
			wake := s.Step(ctx, false)
			if wake.After(until) {
				wake = until
			}
			clk.Set(wake)
		}
	}
	step(time.Date(2024, 6, 4, 0, 0, 0, 0, time.UTC)) // Monday 20:00 in New York
	_ = demo.SetState("demo-web-2", fleet.Running)    // an engineer needs it tonight
	demo.FailNext("demo-web-2", 3)                    // and Tuesday's stop will fail three times
	step(time.Date(2024, 6, 4, 23, 30, 0, 0, time.UTC))
	ny, _ := time.LoadLocation("America/New_York")
	for _, e := range log.Events("demo-web-2") {
		fmt.Printf("%s %-18s %s\n", e.Time.In(ny).Format("Mon 15:04:05"), e.Kind, e.Message)
	}
	// Output:
	// Mon 07:00:00 resource-added     web-2 (demo-web-2) added to the inventory, stopped
	// Mon 07:00:00 tag-added          web-2: tag almanac-schedule-notify added: web-team@example.com
	// Mon 07:00:00 tag-added          web-2: tag almanac-schedule-start added: mon0800_tue0800_wed0800_thu0800_fri0800
	// Mon 07:00:00 tag-added          web-2: tag almanac-schedule-stop added: mon1900_tue1900_wed1900_thu1900_fri1900
	// Mon 07:00:00 tag-added          web-2: tag almanac-schedule-timezone added: america-new_york
	// Mon 08:00:00 action-started     web-2: start for the transition at 2024-06-03T08:00:00-04:00
	// Mon 08:00:00 action-succeeded   web-2: start succeeded (attempt 1): now running
	// Mon 19:00:00 action-started     web-2: stop for the transition at 2024-06-03T19:00:00-04:00
	// Mon 19:00:00 action-succeeded   web-2: stop succeeded (attempt 1): now stopped
	// Mon 20:00:00 state-changed      web-2 changed from stopped to running outside almanac
	// Tue 08:00:00 action-skipped     web-2: start at 2024-06-04T08:00:00-04:00 not needed: already running
	// Tue 19:00:00 action-started     web-2: stop for the transition at 2024-06-04T19:00:00-04:00
	// Tue 19:00:00 action-retried     web-2: stop failed (attempt 1), retrying at 2024-06-04T19:00:30-04:00: stop demo-web-2: simulated failure (the machine did not respond)
	// Tue 19:00:30 action-retried     web-2: stop failed (attempt 2), retrying at 2024-06-04T19:01:30-04:00: stop demo-web-2: simulated failure (the machine did not respond)
	// Tue 19:01:30 action-retried     web-2: stop failed (attempt 3), retrying at 2024-06-04T19:03:30-04:00: stop demo-web-2: simulated failure (the machine did not respond)
	// Tue 19:03:30 action-succeeded   web-2: stop succeeded (attempt 4): now stopped
}
