package calendar

import (
	"testing"
	"time"
)

// TestTableForSharedByName: two loads of one zone share one table, and
// Lookup agrees with time.Location around a transition.
func TestTableForSharedByName(t *testing.T) {
	a, _ := time.LoadLocation("Europe/Berlin")
	b, _ := time.LoadLocation("Europe/Berlin")
	if a == b {
		t.Skip("time.LoadLocation returned one location twice")
	}
	if TableFor(a) != TableFor(b) {
		t.Fatal("two loads of Europe/Berlin got different tables")
	}
	zt := TableFor(a)
	for _, at := range []time.Time{
		time.Date(2026, 3, 29, 0, 59, 59, 0, time.UTC), time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC),
		time.Date(2150, 10, 25, 0, 59, 59, 0, time.UTC), time.Date(2150, 10, 25, 1, 0, 0, 0, time.UTC),
	} {
		off, start, end, ok := zt.Lookup(at.Unix())
		_, want := at.In(a).Zone()
		if !ok || off != int64(want) || start > at.Unix() || end <= at.Unix() {
			t.Errorf("Lookup(%v) = %d [%d, %d) %v, want offset %d", at, off, start, end, ok, want)
		}
	}
	if _, _, _, ok := zt.Lookup(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()); ok {
		t.Error("Lookup past the table's end answered")
	}
}
