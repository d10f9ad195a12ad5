package puppetsched

import (
	"errors"
	"testing"
	"time"
)

func TestWeeklyWindowsDefault(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New("weekend", Params{
		Windows:  []any{map[string]any{"days": []any{"Sat", "sunday"}, "start_time": "22:00", "length_minutes": int64(240)}},
		TimeZone: "Europe/Berlin",
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		at   time.Time
		want bool
	}{
		{"saturday 22:30 Berlin", time.Date(2026, 11, 28, 22, 30, 0, 0, berlin), true},
		{"sunday 01:59 Berlin (window from saturday)", time.Date(2026, 11, 29, 1, 59, 0, 0, berlin), true},
		{"sunday 02:00 Berlin (half-open end)", time.Date(2026, 11, 29, 2, 0, 0, 0, berlin), false},
		{"friday 23:00 Berlin", time.Date(2026, 11, 27, 23, 0, 0, 0, berlin), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.Match(time.Time{}, tt.at); got != tt.want {
				t.Fatalf("Match(%v) = %v, want %v", tt.at, got, tt.want)
			}
		})
	}
	next, ok := s.NextMatch(time.Time{}, time.Date(2026, 11, 27, 12, 0, 0, 0, berlin))
	if want := time.Date(2026, 11, 28, 22, 0, 0, 0, berlin); !ok || !next.Equal(want) {
		t.Fatalf("NextMatch = %v %v, want %v", next, ok, want)
	}
}

func TestWeeklyWindowsBadDay(t *testing.T) {
	_, err := New("bad", Params{
		Windows: []any{map[string]any{"days": []any{"Funday"}, "start_time": "22:00", "length_minutes": int64(60)}},
	})
	var ae *AttrError
	if !errors.As(err, &ae) || ae.Attr != "windows" {
		t.Fatalf("err = %v, want an AttrError on windows", err)
	}
	t.Log(err)
}
