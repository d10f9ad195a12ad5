package webui

import (
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Geometry of a job's timeline, in SVG user units.
const (
	tlLeft   = 8
	tlWidth  = 720 // the drawing area between the margins
	tlHeight = 64
	tlAxisY  = 40
	// tlBucket is the width of one column of the fires band: fires closer
	// than this are drawn as one bar with their count, so a minutely job
	// fills its two days instead of stopping after a few hundred rings.
	tlBucket = 4
)

// timeline is a job's recent past and near future on one horizontal axis:
// a dot per run in [From, To) coloured by its state, a ring per future fire
// (a bar with a count where fires are denser than a column), a tick at each
// midnight of Loc and a line at Now.
type timeline struct {
	Label    string
	From, To time.Time
	Now      time.Time
	Loc      *time.Location
	Runs     []Run
	// Fires are the upcoming fires, earliest first, with their outlooks.
	Fires []Fire
	// FiresCut is set when Fires stopped short of To at a limit: the rest
	// of the axis is drawn as "more fires" rather than as empty.
	FiresCut bool
}

func (tl timeline) x(t time.Time) float64 {
	span := tl.To.Sub(tl.From)
	return tlLeft + float64(t.Sub(tl.From))/float64(span)*tlWidth
}

func (tl timeline) inside(t time.Time) bool { return !t.Before(tl.From) && t.Before(tl.To) }

// render draws the timeline as an inline SVG element. Runs are
// <a class="run STATE"> links to their pages; fires are <circle class="fire">.
func (tl timeline) render() template.HTML {
	loc := tl.Loc
	if loc == nil {
		loc = time.UTC
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		tlLeft*2+tlWidth, tlHeight, template.HTMLEscapeString(tl.Label))
	fmt.Fprintf(&b, `<title>%s</title>`, template.HTMLEscapeString(tl.Label))
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`, tlLeft, tlAxisY, tlLeft+tlWidth, tlAxisY)
	from := tl.From.In(loc)
	for d := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc); d.Before(tl.To); d = d.AddDate(0, 0, 1) {
		if d.Before(tl.From) {
			continue
		}
		x := num(tl.x(d))
		fmt.Fprintf(&b, `<line class="tick" x1="%s" y1="%d" x2="%s" y2="%d"/>`, x, tlAxisY-30, x, tlAxisY+6)
		if tl.x(d)+60 <= tlLeft+tlWidth { // a label needs about 60 units
			fmt.Fprintf(&b, `<text class="daylabel" x="%s" y="%d">%s</text>`, num(tl.x(d)+4), tlAxisY+18, d.Format("Mon 2 Jan"))
		}
	}
	if tl.inside(tl.Now) {
		x := num(tl.x(tl.Now))
		fmt.Fprintf(&b, `<g class="now"><title>now %s</title><line x1="%s" y1="4" x2="%s" y2="%d"/></g>`,
			tl.Now.In(loc).Format("Mon 15:04 MST"), x, x, tlHeight-4)
	}
	tl.renderFires(&b, loc)
	for _, r := range tl.Runs {
		if !tl.inside(r.ScheduledTime) {
			continue
		}
		title := fmt.Sprintf("run %d %s, scheduled %s", r.ID, r.State, r.ScheduledTime.In(loc).Format("Mon 2 Jan 15:04 MST"))
		if r.ExitCode != nil {
			title += fmt.Sprintf(", exit %d", *r.ExitCode)
		}
		fmt.Fprintf(&b, `<a class="run %s" href="/runs/%d"><title>%s</title><circle cx="%s" cy="%d" r="5"/></a>`,
			template.HTMLEscapeString(stateClass(r.State)), r.ID, template.HTMLEscapeString(title), num(tl.x(r.ScheduledTime)), tlAxisY-12)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// fireColumn is the fires that fall in one column of the fires band.
type fireColumn struct {
	first, last        time.Time
	n, waits, willMiss int
}

// class is the column's CSS class: the worst outlook among its fires.
func (c fireColumn) class() string {
	switch {
	case c.willMiss > 0:
		return "fire will-miss"
	case c.waits > 0:
		return "fire waits"
	}
	return "fire"
}

// renderFires draws the upcoming fires: a ring for a column holding one
// fire, a bar with the count for a denser one. Each says whether its runs
// start on time, wait for the job's gate, or will be missed.
func (tl timeline) renderFires(b *strings.Builder, loc *time.Location) {
	var cols []fireColumn
	col := -1
	for _, f := range tl.Fires {
		if !tl.inside(f.Time) {
			continue
		}
		i := int((tl.x(f.Time) - tlLeft) / tlBucket)
		if i != col || len(cols) == 0 {
			cols = append(cols, fireColumn{first: f.Time})
			col = i
		}
		c := &cols[len(cols)-1]
		c.last = f.Time
		c.n++
		switch f.Outlook {
		case OutlookWaits:
			c.waits++
		case OutlookWillMiss:
			c.willMiss++
		}
	}
	const stamp = "Mon 2 Jan 15:04 MST"
	for i, c := range cols {
		if c.n == 1 {
			f := tl.Fires[tl.fireIndex(c.first)]
			title := "next fire " + c.first.In(loc).Format(stamp) + outlookText(f, loc)
			fmt.Fprintf(b, `<circle class="%s" cx="%s" cy="%d" r="4"><title>%s</title></circle>`,
				c.class(), num(tl.x(c.first)), tlAxisY-12, template.HTMLEscapeString(title))
			continue
		}
		title := fmt.Sprintf("%d fires from %s to %s", c.n, c.first.In(loc).Format(stamp), c.last.In(loc).Format(stamp))
		if c.waits > 0 {
			title += fmt.Sprintf("; %d wait for the gate", c.waits)
		}
		if c.willMiss > 0 {
			title += fmt.Sprintf("; %d will be missed", c.willMiss)
		}
		x := tl.x(c.first)
		if i > 0 && x < tl.x(cols[i-1].last)+1 {
			x = tl.x(cols[i-1].last) + 1
		}
		w := max(tl.x(c.last)-x, 2)
		fmt.Fprintf(b, `<rect class="%s bar" x="%s" y="%d" width="%s" height="8" data-fires="%d"><title>%s</title></rect>`,
			c.class(), num(x), tlAxisY-16, num(w), c.n, template.HTMLEscapeString(title))
	}
	if tl.FiresCut && len(tl.Fires) > 0 {
		last := tl.Fires[len(tl.Fires)-1].Time
		if tl.inside(last) {
			fmt.Fprintf(b, `<rect class="fire bar more" x="%s" y="%d" width="%s" height="8"><title>more fires until %s than are drawn</title></rect>`,
				num(tl.x(last)+1), tlAxisY-16, num(max(tl.x(tl.To)-tl.x(last)-1, 1)), tl.To.In(loc).Format(stamp))
		}
	}
}

// fireIndex finds the fire at t in Fires.
func (tl timeline) fireIndex(t time.Time) int {
	i, _ := slices.BinarySearchFunc(tl.Fires, t, func(f Fire, t time.Time) int { return f.Time.Compare(t) })
	return i
}

// outlookText says what the gate does to a fire, for a title; empty when
// the run starts on time.
func outlookText(f Fire, loc *time.Location) string {
	switch f.Outlook {
	case OutlookWaits:
		if f.Until.IsZero() {
			return ": waits, " + f.Reason
		}
		return ": waits until " + f.Until.In(loc).Format("Mon 2 Jan 15:04 MST") + ", " + f.Reason
	case OutlookWillMiss:
		return ": will be missed, " + f.Reason
	}
	return ""
}

// stateClass maps a run state to a CSS class; unknown states share one.
func stateClass(s string) string {
	switch s {
	case RunPending, RunRunning, RunSucceeded, RunFailed, RunKilled, RunMissed, RunLost:
		return s
	}
	return "other"
}

// jobPath is the URL path of a job's page.
func jobPath(name string) string { return "/jobs/" + url.PathEscape(name) }
