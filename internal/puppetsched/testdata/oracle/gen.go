//go:build ignore

// gen writes random schedule cases (attributes, zone, last-checked and now) as
// JSON lines for oracle.rb, which adds what a real Puppet answers. Usage:
//
//	go run gen.go > cases.in.jsonl
//	ruby oracle.rb < cases.in.jsonl > cases.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

type tcase struct {
	Attrs   map[string]any `json:"attrs"`
	TZ      string         `json:"tz"`
	Prev    int64          `json:"prev"`
	NowSec  int64          `json:"now_sec"`
	NowNsec int64          `json:"now_nsec"`
}

var zones = []string{"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago", "Asia/Kathmandu", "Europe/Moscow"}

func main() {
	r := rand.New(rand.NewPCG(2024, 6))
	enc := json.NewEncoder(os.Stdout)
	pick := func(xs ...any) any { return xs[r.IntN(len(xs))] }
	num := func() string {
		if r.IntN(6) > 0 {
			return fmt.Sprint(r.IntN(24))
		}
		return pick(fmt.Sprintf("%02d", r.IntN(25)), fmt.Sprint(r.IntN(70)), "007", "1_0", " 5", "x").(string)
	}
	side := func() string {
		s := num()
		for i := r.IntN(4); i > 0; i-- {
			if r.IntN(6) > 0 {
				s += ":" + fmt.Sprint(r.IntN(60))
				continue
			}
			s += ":" + pick(fmt.Sprintf("%02d", r.IntN(62)), "", "5.5", fmt.Sprint(r.IntN(1200000))).(string)
		}
		return s
	}
	rng := func() any {
		a := side()
		b := a
		if r.IntN(5) > 0 {
			b = side()
		}
		s := a + pick(" - ", "-", "  -\t", " - ").(string) + b
		switch r.IntN(20) {
		case 0:
			s = "x " + s + " y"
		case 1:
			s += " - "
		case 2:
			s = pick("foo", "1 -- 2", "1-2-3", "- 1-2", "24 - 2", "1:60 - 2").(string)
		}
		return s
	}
	day := func() any {
		if r.IntN(2) == 0 {
			return pick("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", int64(r.IntN(7)), fmt.Sprint(r.IntN(7)))
		}
		return pick("Mon", "Tues", "Wednesday", "thu", "FRIDAY", "Satur", "Sun", "Tueday", "Thur", "Someday",
			int64(r.IntN(8)), fmt.Sprint(r.IntN(8)), "01", "Mon\n", "x\n1", int64(-1))
	}
	for i := 0; i < 3000; i++ {
		attrs := map[string]any{}
		if r.IntN(3) > 0 {
			if r.IntN(3) == 0 {
				var rs []any
				for k := r.IntN(3) + 1; k > 0; k-- {
					rs = append(rs, rng())
				}
				attrs["range"] = rs
			} else {
				attrs["range"] = rng()
			}
		}
		if r.IntN(3) == 0 {
			if r.IntN(2) == 0 {
				attrs["weekday"] = day()
			} else {
				ds := []any{}
				for k := r.IntN(4); k > 0; k-- {
					ds = append(ds, day())
				}
				attrs["weekday"] = ds
			}
		}
		if r.IntN(3) > 0 {
			attrs["period"] = pick("hourly", "daily", "weekly", "monthly", "hourly", "daily", "weekly", "monthly", "never", "hourly", "daily", "weekly", "monthly", "yearly")
		}
		if r.IntN(3) == 0 {
			attrs["periodmatch"] = pick("number", "distance", "number", "distance", "number", "exact")
		}
		if r.IntN(3) == 0 {
			attrs["repeat"] = pick(int64(1), int64(2), int64(7), int64(0), int64(-1), int64(-7), int64(-7), int64(-11), int64(13), "1", "3", "010", "08", "x", int64(5000))
		}
		tz := zones[r.IntN(len(zones))]
		base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(366))
		if r.IntN(2) == 0 {
			base = []time.Time{
				time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC),
				time.Date(2024, 4, 6, 0, 0, 0, 0, time.UTC), time.Date(2024, 9, 8, 0, 0, 0, 0, time.UTC),
				time.Date(2024, 10, 6, 0, 0, 0, 0, time.UTC), time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC),
			}[r.IntN(6)]
		}
		now := base.Add(time.Duration(r.Int64N(int64(48 * time.Hour))))
		if r.IntN(2) == 0 {
			now = now.Truncate(time.Hour)
			if r.IntN(2) == 0 {
				now = now.Add(time.Duration(r.IntN(3)-1) * time.Second)
			}
		}
		var prev int64
		if r.IntN(4) > 0 {
			prev = now.Unix() - r.Int64N(40*86400) + 3600
			if r.IntN(3) == 0 {
				prev = now.Unix() - pick(int64(3600), int64(86400), int64(604800), int64(604801), int64(2592000), int64(514), int64(1800)).(int64)
			}
		}
		// Edge cases: the distance threshold to the second (Ruby's integer
		// division floors), and ranges whose limits fall in a DST gap or
		// repeated hour on the day of a transition.
		if per, ok := attrs["period"].(string); ok && r.IntN(2) == 0 {
			scale := map[string]int64{"hourly": 3600, "daily": 86400, "weekly": 604800, "monthly": 2592000}[per]
			rep := int64(1)
			if x, ok := attrs["repeat"].(int64); ok {
				rep = x
			}
			if scale != 0 && rep != 0 {
				th := scale / rep
				if (scale%rep != 0) && ((scale < 0) != (rep < 0)) {
					th--
				}
				prev = now.Unix() - th + int64(r.IntN(3)-1)
			}
		}
		if r.IntN(4) == 0 {
			tr := []struct {
				tz  string
				day time.Time
				h   int
			}{
				{"America/New_York", time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC), 2},
				{"America/New_York", time.Date(2024, 11, 3, 0, 0, 0, 0, time.UTC), 1},
				{"Europe/London", time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC), 1},
				{"Europe/London", time.Date(2024, 10, 27, 0, 0, 0, 0, time.UTC), 1},
				{"Australia/Lord_Howe", time.Date(2024, 4, 7, 0, 0, 0, 0, time.UTC), 1},
				{"Australia/Lord_Howe", time.Date(2024, 10, 6, 0, 0, 0, 0, time.UTC), 2},
				{"America/Santiago", time.Date(2024, 9, 8, 0, 0, 0, 0, time.UTC), 0},
				{"America/Santiago", time.Date(2024, 4, 6, 0, 0, 0, 0, time.UTC), 23},
			}[r.IntN(8)]
			tz = tr.tz
			if r.IntN(2) == 0 {
				attrs = map[string]any{}
			}
			loc, _ := time.LoadLocation(tz)
			lim := func() string { return fmt.Sprintf("%d:%02d", tr.h, r.IntN(4)*15) }
			other := fmt.Sprint(r.IntN(24))
			if r.IntN(2) == 0 {
				attrs["range"] = lim() + " - " + other
			} else {
				attrs["range"] = other + " - " + lim()
			}
			now = time.Date(tr.day.Year(), tr.day.Month(), tr.day.Day(), 0, 0, 0, 0, loc).Add(time.Duration(r.IntN(30*60)) * time.Minute)
			if r.IntN(4) > 0 { // close to the transition
				now = time.Date(tr.day.Year(), tr.day.Month(), tr.day.Day(), tr.h, 0, 0, 0, loc).Add(time.Duration(r.IntN(150)-30) * time.Minute)
			}
		}
		enc.Encode(tcase{Attrs: attrs, TZ: tz, Prev: prev, NowSec: now.Unix(), NowNsec: int64(now.Nanosecond())})
	}
}
