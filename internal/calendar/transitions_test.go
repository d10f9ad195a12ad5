package calendar_test

import (
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

func TestTransitions(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	got := calendar.Transitions(berlin, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	want := []time.Time{time.Date(2025, 3, 30, 1, 0, 0, 0, time.UTC), time.Date(2025, 10, 26, 1, 0, 0, 0, time.UTC)}
	if len(got) != 2 || !got[0].Equal(want[0]) || !got[1].Equal(want[1]) {
		t.Errorf("Berlin 2025 = %v, want %v", got, want)
	}
	if got := calendar.Transitions(time.UTC, time.Unix(0, 0), time.Now()); len(got) != 0 {
		t.Errorf("UTC has transitions %v", got)
	}
}
