package webui

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
)

// Minutes in a day and in a week; week minutes count from Monday 00:00.
const (
	dayMinutes  = 24 * 60
	weekMinutes = 7 * dayMinutes
)

// Geometry of the weekly calendar, in SVG user units. The drawing stretches
// to its box (preserveAspectRatio="none"), so these only fix proportions;
// the day and hour labels are HTML around it, so they keep the page's text
// size at any width instead of shrinking with the picture.
const (
	calGutter = 0  // the hour labels are outside the SVG
	calHeader = 0  // and so are the day names
	calColW   = 96 // one day's column
	calHourH  = 12 // one hour
	calWidth  = calGutter + 7*calColW
	calHeight = calHeader + 24*calHourH
)

var dayNames = [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// weekCalendar describes one weekly picture: 7 day columns by 24 hours,
// blocks for the open (or running) periods, optional start/stop markers and
// a line at the current time.
type weekCalendar struct {
	// Label is read out by screen readers and shown as the SVG's title.
	Label string
	// Blocks are half-open week-minute intervals; they may run past the end
	// of the week (they wrap to Monday) and are split at each midnight.
	Blocks []Interval
	// Starts and Stops are week minutes drawn as markers.
	Starts, Stops []int
	// Now is the current week minute; negative draws no line.
	Now int
	// Monday is the date of the week's Monday, to put dates on the day
	// columns; zero leaves them off.
	Monday time.Time
}

// piece is the part of a block inside one day column.
type piece struct {
	day, from, to int // to is exclusive, in minutes of the day (to <= 1440)
}

// pieces splits a week interval at midnights and at the week's end; an
// interval longer than a week is cut to one week.
func pieces(iv Interval) []piece {
	n := min(iv.End-iv.Start, weekMinutes)
	if n <= 0 {
		return nil
	}
	var out []piece
	for m, end := mod(iv.Start, weekMinutes), mod(iv.Start, weekMinutes)+n; m < end; {
		stop := min((m/dayMinutes+1)*dayMinutes, end)
		w := mod(m, weekMinutes)
		out = append(out, piece{day: w / dayMinutes, from: w % dayMinutes, to: w%dayMinutes + stop - m})
		m = stop
	}
	return out
}

func mod(a, m int) int {
	a %= m
	if a < 0 {
		a += m
	}
	return a
}

// clockText formats a week minute as "Mon 09:00"; a minute that is exactly
// the week's end reads as "Mon 00:00" of the following week.
func clockText(w int) string {
	w = mod(w, weekMinutes)
	return fmt.Sprintf("%s %02d:%02d", dayNames[w/dayMinutes], w%dayMinutes/60, w%60)
}

// render draws the calendar: HTML day names (with dates when Monday is
// set) and hour labels around an inline SVG of the week. Each block is a
// <g class="block"> (one per interval, holding one <rect> per day it
// touches) with data-start/data-end in week minutes.
func (c weekCalendar) render() template.HTML {
	var b strings.Builder
	b.WriteString(`<div class="weekcal"><div class="wk-head" aria-hidden="true"><span></span>`)
	today := -1
	if c.Now >= 0 && !c.Monday.IsZero() {
		today = mod(c.Now, weekMinutes) / dayMinutes
	}
	for d := range 7 {
		cls := "wk-day"
		if d >= 5 {
			cls += " weekend"
		}
		if d == today {
			cls += " today"
		}
		fmt.Fprintf(&b, `<span class="%s">%s`, cls, dayNames[d])
		if !c.Monday.IsZero() {
			fmt.Fprintf(&b, `<small>%s</small>`, c.Monday.AddDate(0, 0, d).Format("2 Jan"))
		}
		b.WriteString(`</span>`)
	}
	b.WriteString(`</div><div class="wk-body"><div class="wk-hours" aria-hidden="true">`)
	for h := 0; h <= 24; h += 3 {
		// The page's CSP allows no style attributes: a class per label
		// places it (.h0 … .h24 in style.css).
		fmt.Fprintf(&b, `<span class="h%d">%02d:00</span>`, h, h)
	}
	b.WriteString(`</div>`)
	fmt.Fprintf(&b, `<svg class="week" viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		calWidth, calHeight, template.HTMLEscapeString(c.Label))
	fmt.Fprintf(&b, `<title>%s</title>`, template.HTMLEscapeString(c.Label))
	// Grid: day columns and a line every hour, stronger every 3 hours.
	for d := range 7 {
		x := calGutter + d*calColW
		cls := "day"
		if d >= 5 {
			cls = "day weekend"
		}
		fmt.Fprintf(&b, `<rect class="%s" x="%d" y="%d" width="%d" height="%d"/>`, cls, x, calHeader, calColW, 24*calHourH)
	}
	for h := 1; h < 24; h++ {
		y := calHeader + h*calHourH
		cls := "hour"
		if h%3 == 0 {
			cls = "hour major"
		}
		fmt.Fprintf(&b, `<line class="%s" x1="%d" y1="%d" x2="%d" y2="%d"/>`, cls, calGutter, y, calGutter+7*calColW, y)
	}
	for _, iv := range c.Blocks {
		ps := pieces(iv)
		if len(ps) == 0 {
			continue
		}
		title := fmt.Sprintf("%s – %s", clockText(iv.Start), clockText(iv.End))
		fmt.Fprintf(&b, `<g class="block" data-start="%d" data-end="%d"><title>%s</title>`, iv.Start, iv.End, title)
		for _, p := range ps {
			x := calGutter + p.day*calColW + 2
			y := float64(calHeader) + float64(p.from)*calHourH/60
			h := float64(p.to-p.from) * calHourH / 60
			fmt.Fprintf(&b, `<rect x="%d" y="%s" width="%d" height="%s" rx="2"/>`, x, num(y), calColW-4, num(h))
		}
		b.WriteString(`</g>`)
	}
	marker := func(cls string, w int) {
		w = mod(w, weekMinutes)
		x := calGutter + w/dayMinutes*calColW
		y := float64(calHeader) + float64(w%dayMinutes)*calHourH/60
		fmt.Fprintf(&b, `<g class="marker %s" data-minute="%d"><title>%s %s</title><line x1="%d" y1="%s" x2="%d" y2="%s"/></g>`,
			cls, w, cls, clockText(w), x+1, num(y), x+calColW-1, num(y))
	}
	for _, w := range c.Starts {
		marker("start", w)
	}
	for _, w := range c.Stops {
		marker("stop", w)
	}
	if c.Now >= 0 {
		w := mod(c.Now, weekMinutes)
		x := calGutter + w/dayMinutes*calColW
		y := float64(calHeader) + float64(w%dayMinutes)*calHourH/60
		fmt.Fprintf(&b, `<g class="now" data-minute="%d"><title>now: %s</title><line x1="%d" y1="%s" x2="%d" y2="%s"/></g>`,
			w, clockText(w), x, num(y), x+calColW, num(y))
	}
	b.WriteString(`</svg></div></div>`)
	return template.HTML(b.String())
}

// num formats a coordinate with at most two decimals.
func num(f float64) string {
	s := fmt.Sprintf("%.2f", f)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// weekMinute returns t's minute since Monday 00:00 in loc.
func weekMinute(t time.Time, loc *time.Location) int {
	t = t.In(loc)
	day := (int(t.Weekday()) + 6) % 7 // Monday = 0
	return day*dayMinutes + t.Hour()*60 + t.Minute()
}

// mondayOf returns the date of the Monday that starts t's week in loc.
func mondayOf(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	y, m, d := t.Date()
	return time.Date(y, m, d-(int(t.Weekday())+6)%7, 0, 0, 0, 0, loc)
}

// runningPeriods turns a resource's start and stop events (week minutes)
// into the periods the schedule keeps it running: from each start to the
// next stop, wrapping round the week. With no stops a started resource is
// never stopped by the schedule and with no starts it is never started, so
// neither draws a period (the markers show the events).
func runningPeriods(starts, stops []int) []Interval {
	if len(starts) == 0 || len(stops) == 0 {
		return nil
	}
	type ev struct {
		at    int
		start bool
	}
	// A start and a stop at the same minute is a validation error upstream
	// (nothing is done then), so such a minute takes part in no period.
	set := func(ms []int) map[int]bool {
		out := make(map[int]bool, len(ms))
		for _, m := range ms {
			out[mod(m, weekMinutes)] = true
		}
		return out
	}
	startAt, stopAt := set(starts), set(stops)
	var evs []ev
	for m := range startAt {
		if !stopAt[m] {
			evs = append(evs, ev{m, true})
		}
	}
	for m := range stopAt {
		if !startAt[m] {
			evs = append(evs, ev{m, false})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.at, b.at) })
	// Begin the walk just after a stop so every period is seen whole.
	first := 0
	for i, e := range evs {
		if !e.start {
			first = i + 1
			break
		}
	}
	var out []Interval
	open := -1
	for k := range len(evs) {
		i := (first + k) % len(evs)
		e := evs[i]
		at := e.at
		if i < first {
			at += weekMinutes // wrapped past Sunday into the next week
		}
		switch {
		case e.start && open < 0:
			open = at
		case !e.start && open >= 0:
			if at > open {
				out = append(out, Interval{open, at})
			}
			open = -1
		}
	}
	for i := range out {
		if out[i].Start >= weekMinutes {
			out[i].Start -= weekMinutes
			out[i].End -= weekMinutes
		}
	}
	slices.SortFunc(out, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	return out
}
