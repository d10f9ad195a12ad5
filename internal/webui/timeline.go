package webui

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"time"
)

// Geometry of a job's timeline, in SVG user units.
const (
	tlLeft   = 8
	tlWidth  = 720 // the drawing area between the margins
	tlHeight = 64
	tlAxisY  = 40
)

// timeline is a job's recent past and near future on one horizontal axis:
// a dot per run in [From, To) coloured by its state, a ring per future fire,
// a tick at each midnight of Loc and a line at Now.
type timeline struct {
	Label    string
	From, To time.Time
	Now      time.Time
	Loc      *time.Location
	Runs     []Run
	Fires    []time.Time
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
	for _, f := range tl.Fires {
		if !tl.inside(f) {
			continue
		}
		fmt.Fprintf(&b, `<circle class="fire" cx="%s" cy="%d" r="4"><title>next fire %s</title></circle>`,
			num(tl.x(f)), tlAxisY-12, f.In(loc).Format("Mon 2 Jan 15:04 MST"))
	}
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

// stateClass maps a run state to a CSS class; unknown states share one.
func stateClass(s string) string {
	switch s {
	case RunPending, RunRunning, RunSucceeded, RunFailed, RunKilled, RunMissed:
		return s
	}
	return "other"
}

// jobPath is the URL path of a job's page.
func jobPath(name string) string { return "/jobs/" + url.PathEscape(name) }
