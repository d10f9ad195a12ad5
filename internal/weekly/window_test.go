package weekly

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseWindow(t *testing.T) {
	sat, sun, mon, wed := time.Saturday, time.Sunday, time.Monday, time.Wednesday
	tests := []struct {
		name   string
		days   []string
		start  string
		length int64
		want   Window
	}{
		{"abbreviated", []string{"Sat", "Sun"}, "23:30", 60, Window{[]time.Weekday{sat, sun}, 23*60 + 30, 60}},
		{"full names any case", []string{"SUNDAY", "monday", "Wednesday"}, "01:00", 30, Window{[]time.Weekday{mon, wed, sun}, 60, 30}},
		{"mixed case short", []string{"wEd"}, "00:00", 1, Window{[]time.Weekday{wed}, 0, 1}},
		{"repeats ignored", []string{"Sun", "sun", "Sunday"}, "23:59", 10080, Window{[]time.Weekday{sun}, 23*60 + 59, 10080}},
		{"one-digit hour and minute", []string{"Mon"}, "7:5", 10, Window{[]time.Weekday{mon}, 7*60 + 5, 10}},
		{"week order", []string{"sun", "sat", "wed", "mon"}, "12:00", 5, Window{[]time.Weekday{mon, wed, sat, sun}, 720, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWindow(tt.days, tt.start, tt.length)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseWindowErrors(t *testing.T) {
	tests := []struct {
		days   []string
		start  string
		length int64
		field  string
		want   string
	}{
		{nil, "10:00", 5, "days", "days: at least one day is required"},
		{[]string{"Mon", "Someday"}, "10:00", 5, "days", `days[1] "Someday": unknown day (want Mon..Sun or Monday..Sunday)`},
		{[]string{"tues"}, "10:00", 5, "days", `days[0] "tues": unknown day (want Mon..Sun or Monday..Sunday)`},
		{[]string{""}, "10:00", 5, "days", `days[0] "": unknown day (want Mon..Sun or Monday..Sunday)`},
		{[]string{"Mon"}, "25:00", 5, "start_time", `start_time "25:00": hour out of range`},
		{[]string{"Mon"}, "24:00", 5, "start_time", `start_time "24:00": hour out of range`},
		{[]string{"Mon"}, "23:60", 5, "start_time", `start_time "23:60": minute out of range`},
		{[]string{"Mon"}, "2300", 5, "start_time", `start_time "2300": want HH:MM`},
		{[]string{"Mon"}, "", 5, "start_time", `start_time "": want HH:MM`},
		{[]string{"Mon"}, "-1:00", 5, "start_time", `start_time "-1:00": want HH:MM`},
		{[]string{"Mon"}, "+1:00", 5, "start_time", `start_time "+1:00": want HH:MM`},
		{[]string{"Mon"}, "10:00:00", 5, "start_time", `start_time "10:00:00": want HH:MM`},
		{[]string{"Mon"}, "010:00", 5, "start_time", `start_time "010:00": want HH:MM`},
		{[]string{"Mon"}, " 1:00", 5, "start_time", `start_time " 1:00": want HH:MM`},
		{[]string{"Mon"}, "10:00", 0, "length_minutes", `length_minutes 0: must be at least 1`},
		{[]string{"Mon"}, "10:00", -30, "length_minutes", `length_minutes -30: must be at least 1`},
		{[]string{"Mon"}, "10:00", 10081, "length_minutes", `length_minutes 10081: longer than a week (10080 minutes)`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := ParseWindow(tt.days, tt.start, tt.length)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error %q, want %q", err, tt.want)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Errorf("error %#v does not name field %q", err, tt.field)
			}
		})
	}
}

func TestParseDay(t *testing.T) {
	for i, names := range [][]string{
		{"sun", "Sun", "SUNDAY", "sunday"}, {"mon", "Monday"}, {"tue", "TUESDAY"}, {"Wed", "wednesday"},
		{"thu", "Thursday"}, {"fri", "FRIDAY"}, {"sat", "Saturday"},
	} {
		for _, n := range names {
			if d, ok := ParseDay(n); !ok || d != time.Weekday(i) {
				t.Errorf("ParseDay(%q) = %v, %v; want %v", n, d, ok, time.Weekday(i))
			}
		}
	}
	for _, bad := range []string{"", "mo", "mond", "tuesady", "domenica", "sun "} {
		if _, ok := ParseDay(bad); ok {
			t.Errorf("ParseDay(%q) accepted", bad)
		}
	}
}

func TestWindowString(t *testing.T) {
	w, err := ParseWindow([]string{"sun", "sat"}, "23:30", 60)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.String(); got != "Sat,Sun 23:30 +60m" {
		t.Errorf("String() = %q", got)
	}
}

func FuzzParseWindow(f *testing.F) {
	f.Add("Sat,Sun", "23:30", int64(60))
	f.Add("monday", "0:0", int64(1))
	f.Add("Someday", "25:00", int64(0))
	f.Add("", "24:00", int64(-1))
	f.Add("wed,WED,Wednesday", "7:5", int64(10080))
	f.Add("thu", "12:345", int64(10081))
	f.Add("fri", "１２:00", int64(5))
	f.Fuzz(func(t *testing.T, days, start string, length int64) {
		var ds []string
		if days != "" {
			ds = strings.Split(days, ",")
		}
		w, err := ParseWindow(ds, start, length)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FieldError", err)
			}
			if strings.ContainsAny(err.Error(), "\n") && !strings.ContainsAny(start+days, "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if len(w.Days) == 0 || w.Start < 0 || w.Start >= winMinutesPerDay || w.Length < 1 || w.Length > MaxWindowLength {
			t.Fatalf("invalid window %+v from %q %q %d", w, days, start, length)
		}
		// The parsed window reads back the same from its canonical fields.
		var names []string
		for _, d := range w.Days {
			names = append(names, d.String())
		}
		w2, err := ParseWindow(names, fmt.Sprintf("%02d:%02d", w.Start/60, w.Start%60), int64(w.Length))
		if err != nil || !reflect.DeepEqual(w, w2) {
			t.Fatalf("round trip %+v -> %+v, %v", w, w2, err)
		}
		c := NewCalendar(nil, w)
		if got, want := c.WeeklyMinutes(), min(len(w.Days)*w.Length, winMinutesPerWeek); got > want || got < w.Length {
			t.Fatalf("WeeklyMinutes = %d for %+v", got, w)
		}
	})
}
