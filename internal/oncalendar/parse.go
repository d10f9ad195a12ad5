package oncalendar

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// The bounds of the language, as systemd.time(7) sets them.
const (
	// MinYear and MaxYear bound the years an event can name and fire in.
	MinYear = 1970
	MaxYear = 2199
	// maxComponents bounds the items of one comma-separated list.
	maxComponents = 240
	usPerSec      = 1000000
)

// ParseError reports an event Parse rejects: where and why.
type ParseError struct {
	Expr   string // the event as given
	Column int    // 1-based byte column of the offending text; 0 if none
	Msg    string // what is wrong
}

func (e *ParseError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("oncalendar: at column %d: %s", e.Column, e.Msg)
	}
	return "oncalendar: " + e.Msg
}

// comp is one item of a field's list: start, or start..stop, each with an
// optional /repeat. stop is -1 when absent, repeat 0 when absent. Seconds
// are in microseconds.
type comp struct{ start, stop, repeat int }

// field indexes.
const (
	fYear = iota
	fMonth
	fDay
	fHour
	fMinute
	fSecond
)

var fieldNames = [6]string{"year", "month", "day", "hour", "minute", "second"}

// parser reads one event, keeping the offset of the text it is at for
// errors.
type parser struct {
	expr string // the whole event
	s    string // what is left to read
	end  int    // offset in expr where s ends
	spec *Spec
}

// pos returns the 1-based column of the current position.
func (p *parser) pos() int { return p.end - len(p.s) + 1 }

func (p *parser) errf(col int, format string, a ...any) error {
	return &ParseError{Expr: p.expr, Column: col, Msg: fmt.Sprintf(format, a...)}
}

var shorthands = map[string]string{
	"minutely":      "*-*-* *:*:00",
	"hourly":        "*-*-* *:00:00",
	"daily":         "*-*-* 00:00:00",
	"monthly":       "*-*-01 00:00:00",
	"weekly":        "Mon *-*-* 00:00:00",
	"yearly":        "*-01-01 00:00:00",
	"annually":      "*-01-01 00:00:00",
	"anually":       "*-01-01 00:00:00",
	"quarterly":     "*-01,04,07,10-01 00:00:00",
	"semiannually":  "*-01,07-01 00:00:00",
	"semi-annually": "*-01,07-01 00:00:00",
	"biannually":    "*-01,07-01 00:00:00",
	"bi-annually":   "*-01,07-01 00:00:00",
}

// MaxLen bounds an event's length in bytes.
const MaxLen = 1024

// Parse compiles a calendar event. loc is the zone an event without a zone
// suffix is read in (nil means UTC): almanac's counterpart of the host's
// local zone, which systemd uses. docs/systemd.md describes the language.
func Parse(expr string, loc *time.Location) (*Spec, error) {
	if loc == nil {
		loc = time.UTC
	}
	s := &Spec{loc: loc}
	if len(expr) > MaxLen {
		return nil, &ParseError{Expr: expr, Msg: fmt.Sprintf("event is %d bytes long; the limit is %d", len(expr), MaxLen)}
	}
	lead := len(expr) - len(strings.TrimLeft(expr, " \t"))
	body := strings.TrimRight(expr[lead:], " \t")
	if body == "" {
		return nil, &ParseError{Expr: expr, Column: 1, Msg: "empty calendar event"}
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; c < ' ' || c > '~' {
			return nil, &ParseError{Expr: expr, Column: lead + i + 1, Msg: fmt.Sprintf("unexpected character %q", c)}
		}
	}
	// A zone suffix: " UTC" (any case) or a last word naming a zone.
	if len(body) > 4 && strings.EqualFold(body[len(body)-4:], " UTC") {
		s.utc, s.loc = true, time.UTC
		body = strings.TrimRight(body[:len(body)-4], " ")
	} else if i := strings.LastIndexByte(body, ' '); i >= 0 {
		if z, ok := loadZone(body[i+1:]); ok {
			s.zone, s.loc = body[i+1:], z
			body = strings.TrimRight(body[:i], " ")
		} else if w := body[i+1:]; strings.Contains(w, "/") && w[0] >= 'A' && w[0] <= 'Z' {
			return nil, &ParseError{Expr: expr, Column: lead + i + 2, Msg: fmt.Sprintf("unknown time zone %q", w)}
		}
	}
	p := &parser{expr: expr, s: body, end: lead + len(body), spec: s}
	if full, ok := shorthands[strings.ToLower(body)]; ok {
		p.s, p.end = full, len(full)
	}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if err := s.finish(p); err != nil {
		return nil, err
	}
	s.expr = expr
	s.norm = s.format()
	return s, nil
}

// loadZone resolves a zone suffix: an IANA name the tz database has.
func loadZone(name string) (*time.Location, bool) {
	if name == "" || name == "Local" || strings.ContainsAny(name, "*:,.~@") && !strings.Contains(name, "/") {
		return nil, false
	}
	if c := name[0]; c >= '0' && c <= '9' || c == '*' {
		return nil, false
	}
	// The calendar core caches locations (and their offset tables), so
	// compiling an event again does not reread the tz database. It also
	// takes almanac's tag form (europe-berlin), which systemd does not.
	if calendar.TagForm(name) == name {
		return nil, false
	}
	z, err := calendar.LoadZone(name)
	if err != nil {
		return nil, false
	}
	return z, true
}

// parse reads weekdays, date and time.
func (p *parser) parse() error {
	if err := p.weekdays(); err != nil {
		return err
	}
	done, err := p.date()
	if err != nil {
		return err
	}
	if !done {
		if err := p.time(); err != nil {
			return err
		}
	}
	if p.s != "" {
		return p.errf(p.pos(), "unexpected %q", p.s)
	}
	return nil
}

var dayNames = [...]struct {
	name string
	nr   int
}{
	{"monday", 0}, {"mon", 0}, {"tuesday", 1}, {"tue", 1}, {"wednesday", 2}, {"wed", 2},
	{"thursday", 3}, {"thu", 3}, {"friday", 4}, {"fri", 4}, {"saturday", 5}, {"sat", 5},
	{"sunday", 6}, {"sun", 6},
}

// weekdays reads an optional weekday list: names, "a..b" (or "a-b")
// ranges, commas.
func (p *parser) weekdays() error {
	last := -1
	first := true
	for {
		matched := -1
		for _, d := range dayNames {
			if len(p.s) >= len(d.name) && strings.EqualFold(p.s[:len(d.name)], d.name) {
				rest := p.s[len(d.name):]
				if rest != "" && !strings.ContainsRune("-., ", rune(rest[0])) {
					return p.errf(p.pos(), "unknown weekday %q", wordAt(p.s))
				}
				matched = d.nr
				if last >= 0 {
					if last > d.nr {
						return p.errf(p.pos(), "weekday range ends before it starts (weeks run Mon..Sun)")
					}
					for j := last + 1; j < d.nr; j++ {
						p.spec.weekdays |= 1 << j
					}
				}
				p.spec.weekdays |= 1 << d.nr
				p.s = rest
				break
			}
		}
		if matched < 0 {
			if first {
				return nil
			}
			return p.errf(p.pos(), "expected a weekday name, not %q", wordAt(p.s))
		}
		first = false
		if p.s == "" {
			return nil
		}
		switch p.s[0] {
		case ' ':
			p.s = strings.TrimLeft(p.s, " ")
			return nil
		case '.':
			if last >= 0 || len(p.s) < 2 || p.s[1] != '.' {
				return p.errf(p.pos(), "a weekday range is written Mon..Fri")
			}
			last = matched
			p.s = p.s[2:]
		case '-':
			if last >= 0 {
				return p.errf(p.pos(), "a weekday range is written Mon..Fri")
			}
			last = matched
			p.s = p.s[1:]
		case ',':
			last = -1
			p.s = p.s[1:]
		}
		if p.s == "" || p.s[0] == ' ' {
			if last >= 0 {
				return p.errf(p.pos(), "weekday range has no end")
			}
			p.s = strings.TrimLeft(p.s, " ")
			return nil
		}
	}
}

// wordAt returns the text up to the next separator, for messages.
func wordAt(s string) string {
	if i := strings.IndexAny(s, " ,.-"); i > 0 {
		return s[:i]
	}
	return s
}

// dateSep reads the separator before a date's next part: - or ~ (the
// day counts from the end of the month, reported as eom).
func (p *parser) dateSep() (eom bool, err error) {
	switch p.s[0] {
	case '~':
		eom = true
	case '-':
	default:
		return false, p.errf(p.pos(), "unexpected %q in the date (want - or ~)", p.s[0])
	}
	p.s = p.s[1:]
	return eom, nil
}

// date reads an optional date: [year-]month-day, or ~ for days counted
// from the end of the month, or @SECONDS. done reports that the event is
// complete (the @ form has no time).
func (p *parser) date() (done bool, err error) {
	if p.s == "" {
		return false, nil
	}
	if p.s[0] == '@' {
		return true, p.timestamp()
	}
	save := p.s
	first, err := p.chain(fYear, false)
	if err != nil {
		return false, err
	}
	if p.s == "" || p.s[0] == ':' {
		p.s = save // it was a time
		return false, nil
	}
	eom, err := p.dateSep()
	if err != nil {
		return false, err
	}
	second, err := p.chain(fDay, false)
	if err != nil {
		return false, err
	}
	if p.s == "" || p.s[0] == ' ' {
		p.s = strings.TrimLeft(p.s, " ")
		p.spec.comps[fMonth], p.spec.comps[fDay], p.spec.eom = first, second, eom
		return false, nil
	}
	if eom {
		return false, p.errf(p.pos(), "~ must separate month and day, the last part of the date")
	}
	if eom, err = p.dateSep(); err != nil {
		return false, err
	}
	third, err := p.chain(fDay, false)
	if err != nil {
		return false, err
	}
	if p.s != "" && p.s[0] != ' ' {
		return false, p.errf(p.pos(), "unexpected %q after the date", p.s[0])
	}
	p.s = strings.TrimLeft(p.s, " ")
	p.spec.comps[fYear], p.spec.comps[fMonth], p.spec.comps[fDay], p.spec.eom = first, second, third, eom
	return false, nil
}

// timestamp reads @SECONDS: one instant, in UTC.
func (p *parser) timestamp() error {
	col := p.pos()
	p.s = p.s[1:]
	n, ok := p.number()
	if !ok {
		return p.errf(col+1, "expected seconds since the epoch after @")
	}
	if n > 7258118399 { // 2199-12-31T23:59:59Z
		return p.errf(col, "@%d is after the year %d", n, MaxYear)
	}
	t := time.Unix(int64(n), 0).UTC()
	single := func(v int) []comp { return []comp{{start: v, stop: -1}} }
	c := &p.spec.comps
	c[fYear], c[fMonth], c[fDay] = single(t.Year()), single(int(t.Month())), single(t.Day())
	c[fHour], c[fMinute], c[fSecond] = single(t.Hour()), single(t.Minute()), single(t.Second()*usPerSec)
	p.spec.utc, p.spec.loc, p.spec.zone = true, time.UTC, ""
	return nil
}

// time reads the time: hour:minute[:second]; none means 00:00:00.
func (p *parser) time() error {
	c := &p.spec.comps
	zero := []comp{{start: 0, stop: -1}}
	if p.s == "" {
		c[fHour], c[fMinute], c[fSecond] = zero, zero, zero
		return nil
	}
	var err error
	if c[fHour], err = p.chain(fHour, false); err != nil {
		return err
	}
	if p.s == "" || p.s[0] != ':' {
		return p.errf(p.pos(), "expected : after the hour")
	}
	p.s = p.s[1:]
	if c[fMinute], err = p.chain(fMinute, false); err != nil {
		return err
	}
	if p.s == "" {
		c[fSecond] = zero
		return nil
	}
	if p.s[0] != ':' {
		return p.errf(p.pos(), "expected : after the minute, or the end")
	}
	p.s = p.s[1:]
	if c[fSecond], err = p.chain(fSecond, true); err != nil {
		return err
	}
	if p.s != "" {
		return p.errf(p.pos(), "unexpected %q after the seconds", p.s)
	}
	return nil
}

// chain reads "*" or a comma-separated list of items. A nil result means
// "*" (any value); for seconds "*" is every whole second.
func (p *parser) chain(f int, usec bool) ([]comp, error) {
	if p.s != "" && p.s[0] == '*' {
		p.s = p.s[1:]
		if usec {
			return []comp{{start: 0, stop: -1, repeat: usPerSec}}, nil
		}
		return nil, nil
	}
	var out []comp
	for {
		if len(out) >= maxComponents {
			return nil, p.errf(p.pos(), "more than %d items in one list", maxComponents)
		}
		c, err := p.item(usec)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		if p.s == "" || p.s[0] != ',' {
			return out, nil
		}
		p.s = p.s[1:]
	}
}

// item reads one list item: N, N..M, N/R, N..M/R.
func (p *parser) item(usec bool) (comp, error) {
	c := comp{stop: -1}
	col := p.pos()
	var ok bool
	if c.start, ok = p.decimal(usec); !ok {
		return c, p.errf(col, "expected a number or *, not %q", wordAt(p.s))
	}
	if strings.HasPrefix(p.s, "..") {
		p.s = p.s[2:]
		scol := p.pos()
		if c.stop, ok = p.decimal(usec); !ok {
			return c, p.errf(scol, "expected the end of the range after ..")
		}
		c.repeat = 1
		if usec {
			c.repeat = usPerSec
		}
	}
	if p.s != "" && p.s[0] == '/' {
		p.s = p.s[1:]
		rcol := p.pos()
		if c.repeat, ok = p.decimal(usec); !ok {
			return c, p.errf(rcol, "expected a repetition after /")
		}
		if c.repeat == 0 {
			return c, p.errf(rcol, "repetition must not be zero")
		}
	} else if usec && c.stop >= 0 && c.start+c.repeat > c.stop {
		return c, p.errf(col, "a range of seconds shorter than one second needs a repetition (/...)")
	}
	if p.s != "" && !strings.ContainsRune(" ,-~:", rune(p.s[0])) {
		return c, p.errf(p.pos(), "unexpected %q", p.s[0])
	}
	return c, nil
}

// maxValue bounds the numbers an item may hold (systemd's int).
const maxValue = 1<<31 - 1

// number reads decimal digits.
func (p *parser) number() (int, bool) {
	i, n := 0, 0
	for i < len(p.s) && p.s[i] >= '0' && p.s[i] <= '9' {
		if n > maxValue/10 {
			n = maxValue + 1 // overflow; reported by the caller's range check
		} else {
			n = n*10 + int(p.s[i]-'0')
		}
		i++
	}
	if i == 0 {
		return 0, false
	}
	p.s = p.s[i:]
	return n, true
}

// decimal reads a number; with usec, seconds with an optional fraction
// (up to six digits), returned in microseconds.
func (p *parser) decimal(usec bool) (int, bool) {
	n, ok := p.number()
	if !ok {
		return 0, false
	}
	if !usec {
		return min(n, maxValue+1), true
	}
	if n > maxValue/usPerSec {
		return maxValue + 1, true
	}
	n *= usPerSec
	if len(p.s) >= 2 && p.s[0] == '.' && p.s[1] != '.' || len(p.s) == 1 && p.s[0] == '.' {
		p.s = p.s[1:]
		frac, digits, roundUp := 0, 0, false
		for len(p.s) > 0 && p.s[0] >= '0' && p.s[0] <= '9' {
			switch {
			case digits < 6:
				frac = frac*10 + int(p.s[0]-'0')
			case digits == 6:
				roundUp = p.s[0] >= '5' // systemd rounds at the seventh digit
			}
			digits++
			p.s = p.s[1:]
		}
		for ; digits < 6; digits++ {
			frac *= 10
		}
		if roundUp {
			frac++
		}
		n += frac
	}
	return n, true
}

// finish normalizes the parsed fields as systemd does, checks their
// bounds, and builds the lookup tables Next uses.
func (s *Spec) finish(p *parser) error {
	if s.weekdays == 0 || s.weekdays >= 0x7f {
		s.weekdays = 0x7f
	}
	if s.eom && s.comps[fDay] == nil {
		s.eom = false
	}
	for i := range s.comps[fYear] {
		c := &s.comps[fYear][i]
		c.start = fixYear(c.start)
		if c.stop >= 0 {
			c.stop = fixYear(c.stop)
		}
	}
	for f := range s.comps {
		s.comps[f] = normalizeChain(s.comps[f])
	}
	bounds := [6][2]int{{MinYear, MaxYear}, {1, 12}, {1, 31}, {0, 23}, {0, 59}, {0, 60*usPerSec - 1}}
	for f, b := range bounds {
		if err := chainValid(s.comps[f], b[0], b[1], f == fDay && s.eom); err != "" {
			return &ParseError{Expr: p.expr, Msg: fmt.Sprintf("%s: %s", fieldNames[f], err)}
		}
	}
	s.tables()
	return nil
}

// fixYear reads two-digit years as systemd does: 0-69 → 2000-2069, 70-99 →
// 1970-1999.
func fixYear(y int) int {
	switch {
	case y >= 0 && y < 70:
		return y + 2000
	case y >= 70 && y < 100:
		return y + 1900
	}
	return y
}

// normalizeChain trims each range to a whole number of repetitions, turns
// items that cannot repeat into single values, sorts and drops duplicates.
func normalizeChain(c []comp) []comp {
	for i := range c {
		x := &c[i]
		if x.stop > x.start && x.repeat > 0 {
			x.stop -= (x.stop - x.start) % x.repeat
		}
		if (x.stop > x.start && x.repeat > 0 && x.start+x.repeat > x.stop) || x.start == x.stop {
			x.repeat, x.stop = 0, -1
		}
	}
	sort.Slice(c, func(i, j int) bool {
		a, b := c[i], c[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.stop != b.stop {
			return a.stop < b.stop
		}
		return a.repeat < b.repeat
	})
	out := c[:0]
	for i, x := range c {
		if i > 0 && x == c[i-1] {
			continue
		}
		out = append(out, x)
	}
	return out
}

// chainValid applies systemd's bounds to one field; "" means valid.
func chainValid(c []comp, from, to int, eom bool) string {
	if eom {
		to -= 3 // at most the 28th day from the end
	}
	for _, x := range c {
		switch {
		case x.start < from || x.start > to:
			return fmt.Sprintf("value %s out of range %s..%s", show(x.start, from, to), show(from, from, to), show(to, from, to))
		case x.repeat > to-from:
			return fmt.Sprintf("repetition %s is larger than the field's range", show(x.repeat, from, to))
		case x.stop >= 0 && (x.stop < from || x.stop > to):
			return fmt.Sprintf("range end %s out of range %s..%s", show(x.stop, from, to), show(from, from, to), show(to, from, to))
		case x.stop >= 0 && x.start+x.repeat > x.stop:
			return fmt.Sprintf("range %s..%s ends before it starts", show(x.start, from, to), show(x.stop, from, to))
		case x.stop < 0 && eom && x.start-x.repeat < from && x.repeat > 0:
			return fmt.Sprintf("~%d/%d repeats past the end of the month", x.start, x.repeat)
		case x.stop < 0 && !eom && x.repeat > 0 && x.start+x.repeat > to:
			return fmt.Sprintf("%s/%s never repeats before %s", show(x.start, from, to), show(x.repeat, from, to), show(to, from, to))
		}
	}
	return ""
}

// show renders a field value for a message (seconds from microseconds).
func show(v, from, to int) string {
	if to >= usPerSec {
		return formatSeconds(v)
	}
	return fmt.Sprint(v)
}

// formatSeconds renders microseconds as seconds with a fraction if any.
func formatSeconds(us int) string {
	if us%usPerSec == 0 {
		return fmt.Sprint(us / usPerSec)
	}
	return fmt.Sprintf("%d.%06d", us/usPerSec, us%usPerSec)
}
