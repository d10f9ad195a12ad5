package calendar

import (
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name       string
		zone       string
		civil      [5]int // y m d h min
		kind       Kind
		first, sec string
	}{
		{"plain", "America/New_York", [5]int{2025, 6, 1, 12, 0}, Unique, "2025-06-01T12:00:00-04:00", ""},
		{"ny spring gap", "America/New_York", [5]int{2025, 3, 9, 2, 30}, Gap, "2025-03-09T03:00:00-04:00", ""},
		{"ny gap start", "America/New_York", [5]int{2025, 3, 9, 2, 0}, Gap, "2025-03-09T03:00:00-04:00", ""},
		{"ny after gap", "America/New_York", [5]int{2025, 3, 9, 3, 0}, Unique, "2025-03-09T03:00:00-04:00", ""},
		{"ny before gap", "America/New_York", [5]int{2025, 3, 9, 1, 59}, Unique, "2025-03-09T01:59:00-05:00", ""},
		{"ny fall repeat", "America/New_York", [5]int{2025, 11, 2, 1, 30}, Repeated, "2025-11-02T01:30:00-04:00", "2025-11-02T01:30:00-05:00"},
		{"ny fall after", "America/New_York", [5]int{2025, 11, 2, 2, 0}, Unique, "2025-11-02T02:00:00-05:00", ""},
		{"berlin gap", "Europe/Berlin", [5]int{2025, 3, 30, 2, 15}, Gap, "2025-03-30T03:00:00+02:00", ""},
		{"berlin repeat", "Europe/Berlin", [5]int{2025, 10, 26, 2, 15}, Repeated, "2025-10-26T02:15:00+02:00", "2025-10-26T02:15:00+01:00"},
		{"lord howe gap", "Australia/Lord_Howe", [5]int{2025, 10, 5, 2, 15}, Gap, "2025-10-05T02:30:00+11:00", ""},
		{"lord howe repeat", "Australia/Lord_Howe", [5]int{2025, 4, 6, 1, 45}, Repeated, "2025-04-06T01:45:00+11:00", "2025-04-06T01:45:00+10:30"},
		{"sao paulo midnight gap", "America/Sao_Paulo", [5]int{2018, 11, 4, 0, 30}, Gap, "2018-11-04T01:00:00-02:00", ""},
		{"samoa skipped day", "Pacific/Apia", [5]int{2011, 12, 30, 12, 0}, Gap, "2011-12-31T00:00:00+14:00", ""},
		{"utc", "UTC", [5]int{2100, 2, 28, 23, 59}, Unique, "2100-02-28T23:59:00Z", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := LoadZone(tt.zone)
			if err != nil {
				t.Fatal(err)
			}
			c := tt.civil
			r := Resolve(loc, c[0], time.Month(c[1]), c[2], c[3], c[4], 0)
			if r.Kind != tt.kind {
				t.Fatalf("kind = %v, want %v", r.Kind, tt.kind)
			}
			if got := r.First.Format(time.RFC3339); got != tt.first {
				t.Errorf("first = %s, want %s", got, tt.first)
			}
			if tt.sec != "" {
				if got := r.Second.Format(time.RFC3339); got != tt.sec {
					t.Errorf("second = %s, want %s", got, tt.sec)
				}
			}
		})
	}
}

// TestResolveEveryTransition walks every transition of every zone in the
// database between 1970 and 2040 and checks the wall times around it.
func TestResolveEveryTransition(t *testing.T) {
	if testing.Short() {
		t.Skip("walks the whole tz database")
	}
	end := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range zoneNames {
		loc, err := LoadZone(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cur := time.Date(1970, 1, 1, 0, 0, 0, 0, loc)
		for i := 0; i < 400; i++ {
			_, e := cur.ZoneBounds()
			if e.IsZero() || e.After(end) {
				break
			}
			_, before := e.Add(-time.Second).Zone()
			_, after := e.Zone()
			// The wall time one second after the transition in the new offset
			// must resolve to an instant with that wall time.
			for _, probe := range []time.Time{e.Add(-time.Second), e, e.Add(time.Second)} {
				w := Wall(probe, loc)
				r := ResolveWall(loc, w)
				ok := r.First.Equal(probe) || (r.Kind == Repeated && r.Second.Equal(probe))
				if !ok {
					t.Fatalf("%s transition %s (%d -> %d): wall of %s resolved to %+v", name, e, before, after, probe, r)
				}
			}
			if after > before {
				// Spring forward: a wall time inside the gap resolves to e.
				w := Wall(e.Add(-time.Second), loc) + 1 + int64(after-before)/2
				r := ResolveWall(loc, w)
				if r.Kind != Gap || !r.First.Equal(e) {
					t.Fatalf("%s gap at %s: got %+v", name, e, r)
				}
			}
			cur = e
		}
	}
}
