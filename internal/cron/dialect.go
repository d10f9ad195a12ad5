package cron

import (
	"strings"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// Dialect selects the rules an expression is read by.
type Dialect uint8

const (
	// Vixie is almanac's own dialect (docs/cron.md): ISC/Vixie cron's
	// day-of-month/day-of-week rule and daylight-saving behaviour, plus
	// seconds, L, W, #, H and @every.
	Vixie Dialect = iota
	// Kubernetes reads an expression as a Kubernetes CronJob's schedule,
	// which is parsed by robfig/cron v3's standard parser: five fields,
	// day of week 0-6, `?` as `*` in any field, no L, W, # or H, a
	// day field unrestricted only when one of its items is `*` or `?`
	// without a step above 1 (so `*/2` restricts and the two day fields
	// are ORed), and robfig's daylight-saving behaviour: a fixed wall time
	// inside a spring-forward gap does not fire that day, one repeated by a
	// fall-back fires at both instants. @every is refused: Kubernetes
	// counts it from the CronJob's creation, which a schedule cannot know.
	Kubernetes
)

// String returns the dialect's name as jobs spell it: "vixie" or
// "kubernetes".
func (d Dialect) String() string {
	if d == Kubernetes {
		return "kubernetes"
	}
	return "vixie"
}

// WithDialect selects the dialect (default Vixie). The Kubernetes dialect
// fixes the daylight-saving policies to robfig/cron's, overriding
// WithDSTGap and WithDSTRepeat.
func WithDialect(d Dialect) Option { return func(c *config) { c.dialect = d } }

// kube reports whether the parser reads the Kubernetes dialect.
func (p *parser) kube() bool { return p.dialect == Kubernetes }

// kubeCheckPart rejects the list items the Kubernetes dialect lacks (the
// special day forms and H) before the shared parsing sees them.
func (p *parser) kubeCheckPart(f int, part string, col int) error {
	letters := "LlWw#Hh"
	if f == fMonth || f == fDow {
		// Names contain the letters: a failed name lookup is reported
		// by value.
		letters = "#"
	}
	if i := strings.IndexAny(part, letters); i >= 0 {
		return p.errf(f, col+i, part, "%q: L, W, # and H are not part of the Kubernetes (robfig/cron) dialect", part)
	}
	return nil
}

// kubeStar reports whether a list item leaves its field unrestricted under
// robfig/cron's rule: it is `*` or `?` (or starts `*-`/`?-`, which robfig
// reads as `*`), with no step or a step of 1.
func kubeStar(part string) bool {
	rng, step, _ := strings.Cut(part, "/")
	if rng != "*" && rng != "?" && !strings.HasPrefix(rng, "*-") && !strings.HasPrefix(rng, "?-") {
		return false
	}
	return step == "" || strings.TrimLeft(strings.TrimPrefix(step, "+"), "0") == "1"
}

// kubeStarField reports whether any item of a field's text is unrestricted
// (robfig ORs the items' bits, star bit included).
func kubeStarField(text string) bool {
	for _, part := range strings.Split(text, ",") {
		if kubeStar(part) {
			return true
		}
	}
	return false
}

// kubeFinish applies the Kubernetes dialect's day rule and daylight-saving
// policies to a parsed spec.
func kubeFinish(s *Spec) {
	dom, dow := kubeStarField(s.fields[fDom]), kubeStarField(s.fields[fDow])
	s.and = dom || dow
	s.domStar, s.dowStar = dom, dow
	s.gap, s.repeat = calendar.GapSkip, calendar.RepeatTwice
}
