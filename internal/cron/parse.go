package cron

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/calendar"
)

// ParseError reports an expression Parse rejects: which field, where, and why.
type ParseError struct {
	Expr   string // the expression as given
	Field  int    // 1-based position of the field in the expression; 0 if none
	Name   string // the field's name ("day of month"); "" if none
	Column int    // 1-based byte column of the offending text in Expr
	Text   string // the offending text
	Msg    string // what is wrong
}

func (e *ParseError) Error() string {
	if e.Field > 0 {
		return fmt.Sprintf("cron: field %d (%s) at column %d: %s", e.Field, e.Name, e.Column, e.Msg)
	}
	return fmt.Sprintf("cron: at column %d: %s", e.Column, e.Msg)
}

// Option configures Parse.
type Option func(*config)

type config struct {
	loc     *time.Location
	hashKey string
	gap     calendar.GapPolicy
	repeat  calendar.RepeatPolicy
	dialect Dialect
}

// WithLocation sets the zone the expression is evaluated in (default UTC). A
// CRON_TZ= or TZ= prefix in the expression overrides it.
func WithLocation(loc *time.Location) Option {
	return func(c *config) {
		if loc != nil {
			c.loc = loc
		}
	}
}

// WithHashKey sets the key that H fields hash, normally the job's name, so
// that each job gets its own stable minute (hour, ...) and jobs spread out.
// Without it H hashes the empty key.
func WithHashKey(key string) Option { return func(c *config) { c.hashKey = key } }

// WithDSTGap sets what a fixed-time job does when a spring-forward transition
// skips its wall time: run at the first instant after the gap (default) or
// skip that day.
func WithDSTGap(p calendar.GapPolicy) Option { return func(c *config) { c.gap = p } }

// WithDSTRepeat sets what a fixed-time job does when a fall-back transition
// repeats its wall time: run at the first occurrence only (default) or at both.
func WithDSTRepeat(p calendar.RepeatPolicy) Option { return func(c *config) { c.repeat = p } }

// Field indexes, seconds first.
const (
	fSec = iota
	fMin
	fHour
	fDom
	fMonth
	fDow
)

var fieldNames = [6]string{"second", "minute", "hour", "day of month", "month", "day of week"}
var fieldMin = [6]int{0, 0, 0, 1, 1, 0}
var fieldMax = [6]int{59, 59, 23, 31, 12, 7}

var monthNames = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
var dowNames = [...]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

var macros = [...]struct{ name, fields string }{
	{"@yearly", "0 0 1 1 *"},
	{"@annually", "0 0 1 1 *"},
	{"@monthly", "0 0 1 * *"},
	{"@weekly", "0 0 * * 0"},
	{"@daily", "0 0 * * *"},
	{"@midnight", "0 0 * * *"},
	{"@hourly", "0 * * * *"},
}

// parser carries the expression for error reporting.
type parser struct {
	expr    string
	fields  int // 5 or 6
	hashKey string
	cols    [6]int // 1-based column of each field
	macro   bool
	dialect Dialect
}

func (p *parser) errf(f, col int, text, format string, a ...any) *ParseError {
	e := &ParseError{Expr: p.expr, Column: col, Text: text, Msg: fmt.Sprintf(format, a...)}
	if f >= 0 {
		e.Field = f + 1
		if p.fields == 5 {
			e.Field = f
		}
		e.Name = fieldNames[f]
	}
	if p.macro {
		e.Field, e.Name = 0, ""
	}
	return e
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Parse compiles a cron expression: 5 fields (minute hour day-of-month month
// day-of-week) or 6 (seconds first), a macro (@daily, @every 90m, ...), and an
// optional CRON_TZ=Zone or TZ=Zone prefix. See docs/cron.md for the dialect.
// Specs that can never fire are rejected.
func Parse(expr string, opts ...Option) (*Spec, error) {
	// The options write into the Spec's own config, which is on the heap
	// anyway, so applying them costs no allocation of its own.
	s := &Spec{cfg: config{loc: time.UTC}}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.loc, s.gap, s.repeat = s.cfg.loc, s.cfg.gap, s.cfg.repeat
	p := parser{expr: expr, hashKey: s.cfg.hashKey, dialect: s.cfg.dialect}

	var spans [7][2]int // start, end of each whitespace-separated token
	n := 0
	for i := 0; i < len(expr); {
		for i < len(expr) && isSpace(expr[i]) {
			i++
		}
		if i == len(expr) {
			break
		}
		j := i
		for j < len(expr) && !isSpace(expr[j]) {
			j++
		}
		if n == len(spans) {
			return nil, p.errf(-1, i+1, expr[i:j], "too many fields: expected 5 or 6")
		}
		spans[n] = [2]int{i, j}
		n++
		i = j
	}
	if n == 0 {
		return nil, p.errf(-1, 1, "", "empty expression")
	}
	tok := func(k int) string { return expr[spans[k][0]:spans[k][1]] }
	first := 0
	if t := tok(0); strings.HasPrefix(t, "CRON_TZ=") || strings.HasPrefix(t, "TZ=") {
		eq := strings.IndexByte(t, '=') + 1
		name := t[eq:]
		col := spans[0][0] + eq + 1
		if name == "" {
			return nil, p.errf(-1, col, "", "missing time zone name after %s", t)
		}
		loc, err := calendar.LoadZone(name)
		if err != nil {
			return nil, p.errf(-1, col, name, "%v", err)
		}
		s.loc = loc
		first = 1
		if n == 1 {
			return nil, p.errf(-1, spans[0][1]+1, "", "expected a schedule after %s", t)
		}
	}
	if t := tok(first); t[0] == '@' {
		if err := p.parseMacro(s, expr, spans[first:n]); err != nil {
			return nil, err
		}
	} else {
		switch n - first {
		case 6:
			if p.kube() {
				return nil, p.errf(-1, spans[first][0]+1, t, "expected exactly 5 fields, got 6 (the Kubernetes dialect has no seconds field)")
			}
		case 5:
		default:
			return nil, p.errf(-1, spans[first][0]+1, t, "expected 5 or 6 fields, got %d", n-first)
		}
		p.fields = n - first
		f0 := fMin
		if p.fields == 6 {
			f0 = fSec
			s.hasSec = true
		} else {
			s.secs = 1
			s.fields[fSec] = "0"
		}
		for k := first; k < n; k++ {
			f := f0 + k - first
			if err := p.parseField(s, f, tok(k), spans[k][0]+1); err != nil {
				return nil, err
			}
		}
	}
	s.expr = normalize(expr, spans[:n])
	if err := p.finish(s); err != nil {
		return nil, err
	}
	return s, nil
}

// normalize returns the tokens joined by single spaces, reusing expr when it
// is already in that form.
func normalize(expr string, spans [][2]int) string {
	if spans[0][0] == 0 && spans[len(spans)-1][1] == len(expr) {
		ok := true
		for i := 1; i < len(spans); i++ {
			if spans[i][0] != spans[i-1][1]+1 || expr[spans[i-1][1]] != ' ' {
				ok = false
				break
			}
		}
		if ok {
			return expr
		}
	}
	var b strings.Builder
	for i, sp := range spans {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(expr[sp[0]:sp[1]])
	}
	return b.String()
}

func (p *parser) parseMacro(s *Spec, expr string, spans [][2]int) error {
	name := expr[spans[0][0]:spans[0][1]]
	col := spans[0][0] + 1
	if p.kube() && name == "@every" {
		return p.errf(-1, col, name, "@every is not supported in the Kubernetes dialect: Kubernetes counts it from the CronJob's creation; use the vixie dialect's @every, which counts from the epoch")
	}
	if strings.EqualFold(name, "@every") {
		if len(spans) != 2 {
			return p.errf(-1, col, name, "@every takes one duration, e.g. @every 90m")
		}
		text := expr[spans[1][0]:spans[1][1]]
		d, err := time.ParseDuration(text)
		switch {
		case err != nil:
			return p.errf(-1, spans[1][0]+1, text, "invalid duration %q (use Go syntax such as 90s, 15m, 1h30m)", text)
		case d < time.Second:
			return p.errf(-1, spans[1][0]+1, text, "@every duration %s is shorter than one second", text)
		case d%time.Second != 0:
			return p.errf(-1, spans[1][0]+1, text, "@every duration %s is not a whole number of seconds", text)
		}
		s.every = int64(d / time.Second)
		s.fixedZone = true
		return nil
	}
	for _, m := range macros {
		if strings.EqualFold(name, m.name) && (!p.kube() || name == m.name) {
			if len(spans) != 1 {
				return p.errf(-1, spans[1][0]+1, expr[spans[1][0]:spans[1][1]], "unexpected text after %s", name)
			}
			p.fields, p.macro = 5, true
			s.secs = 1
			s.fields[fSec] = "0"
			fs := m.fields
			for f := fMin; f <= fDow; f++ {
				i := strings.IndexByte(fs, ' ')
				if i < 0 {
					i = len(fs)
				}
				if err := p.parseField(s, f, fs[:i], col); err != nil {
					return err
				}
				if i < len(fs) {
					fs = fs[i+1:]
				}
			}
			return nil
		}
	}
	return p.errf(-1, col, name, "unknown macro %s (want @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly or @every <duration>)", name)
}

// parseField compiles one field's text into s.
func (p *parser) parseField(s *Spec, f int, text string, col int) error {
	s.fields[f] = text
	p.cols[f] = col
	var set uint64
	occurrence := 0
	for start := 0; start <= len(text); {
		end := strings.IndexByte(text[start:], ',')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		part := text[start:end]
		pcol := col + start
		if part == "" {
			return p.errf(f, pcol, text, "empty list item in %q", text)
		}
		b, err := p.parsePart(s, f, part, pcol, &occurrence)
		if err != nil {
			return err
		}
		set |= b
		start = end + 1
	}
	switch f {
	case fSec:
		s.secs = set
	case fMin:
		s.mins = set
	case fHour:
		s.hours = uint32(set)
	case fDom:
		s.dom = uint32(set)
	case fMonth:
		s.month = uint16(set)
	case fDow:
		if set&(1<<7) != 0 {
			set = set&^(1<<7) | 1
		}
		s.dow = uint8(set)
	}
	return nil
}

// parsePart compiles one list item and returns its plain bits; the special
// day forms (L, W, #) are stored on s directly.
func (p *parser) parsePart(s *Spec, f int, part string, col int, occurrence *int) (uint64, error) {
	lo, hi := fieldMin[f], fieldMax[f]
	upper := strings.ToUpper(part)
	if p.kube() {
		if err := p.kubeCheckPart(f, part, col); err != nil {
			return 0, err
		}
		if f == fDow {
			hi = 6
		}
	}
	// Special day forms.
	if f == fDom && !p.kube() {
		switch {
		case upper == "L":
			s.lastDay, s.domSpecial = true, true
			return 0, nil
		case upper == "LW":
			s.lastWeekday, s.domSpecial = true, true
			return 0, nil
		case len(upper) > 1 && upper[len(upper)-1] == 'W':
			d, err := p.value(f, part[:len(part)-1], col)
			if err != nil {
				return 0, err
			}
			s.nearestWeekday |= 1 << d
			s.domSpecial = true
			return 0, nil
		}
	}
	if f == fDow && !p.kube() {
		if i := strings.IndexByte(part, '#'); i >= 0 {
			wd, err := p.value(f, part[:i], col)
			if err != nil {
				return 0, err
			}
			k, err := strconv.Atoi(part[i+1:])
			if err != nil || k < 1 || k > 5 {
				return 0, p.errf(f, col+i+1, part, "%q after # must be 1-5 (which occurrence of the weekday in the month)", part[i+1:])
			}
			s.nth |= 1 << ((wd%7)*5 + k - 1)
			s.dowSpecial = true
			return 0, nil
		}
		if upper == "L" {
			return 0, p.errf(f, col, part, "L in day of week needs a weekday before it, e.g. 5L for the last Friday")
		}
		if len(upper) > 1 && upper[len(upper)-1] == 'L' {
			wd, err := p.value(f, part[:len(part)-1], col)
			if err != nil {
				return 0, err
			}
			s.lastDow |= 1 << (wd % 7)
			s.dowSpecial = true
			return 0, nil
		}
	}
	// Split off a step.
	rng, stepText := part, ""
	if i := strings.IndexByte(part, '/'); i >= 0 {
		rng, stepText = part[:i], part[i+1:]
		if stepText == "" {
			return 0, p.errf(f, col+i, part, "missing step after /")
		}
	}
	start, end := lo, hi
	hashed := false
	switch {
	case rng == "*":
	case p.kube() && (rng == "?" || strings.HasPrefix(rng, "*-") || strings.HasPrefix(rng, "?-")):
		// robfig/cron reads ? as * in any field, and ignores what follows
		// "*-" or "?-".
	case rng == "?":
		if f != fDom && f != fDow {
			return 0, p.errf(f, col, part, "? is only allowed in day of month and day of week")
		}
		if stepText != "" {
			return 0, p.errf(f, col, part, "? cannot take a step")
		}
	case !p.kube() && (upper == "H" || strings.HasPrefix(upper, "H(") || strings.HasPrefix(upper, "H/")):
		hashed = true
		if strings.HasPrefix(rng, "H(") || strings.HasPrefix(rng, "h(") {
			if rng[len(rng)-1] != ')' {
				return 0, p.errf(f, col, part, "H range %q must look like H(a-b)", rng)
			}
			inner := rng[2 : len(rng)-1]
			i := strings.IndexByte(inner, '-')
			if i < 0 {
				return 0, p.errf(f, col, part, "H range %q must look like H(a-b)", rng)
			}
			var err error
			if start, err = p.value(f, inner[:i], col+2); err != nil {
				return 0, err
			}
			if end, err = p.value(f, inner[i+1:], col+3+i); err != nil {
				return 0, err
			}
			if start > end {
				return 0, p.errf(f, col, part, "range %s is backwards (start after end)", inner)
			}
		} else if rng != "H" && rng != "h" {
			return 0, p.errf(f, col, part, "unexpected %q: H takes the forms H, H(a-b), H/n and H(a-b)/n", rng)
		} else if f == fDom {
			end = 28 // every month has days 1-28
		} else if f == fDow {
			end = 6
		}
	default:
		i := strings.IndexByte(rng, '-')
		if i == 0 {
			return 0, p.errf(f, col, part, "missing range start in %q", rng)
		}
		var err error
		if i < 0 {
			if start, err = p.value(f, rng, col); err != nil {
				return 0, err
			}
			end = start
			if stepText != "" {
				end = hi
			}
		} else {
			if start, err = p.value(f, rng[:i], col); err != nil {
				return 0, err
			}
			if end, err = p.value(f, rng[i+1:], col+i+1); err != nil {
				return 0, err
			}
			if start > end {
				return 0, p.errf(f, col, part, "range %s is backwards (start after end)", rng)
			}
		}
	}
	step := 1
	if stepText != "" {
		n, err := strconv.Atoi(stepText)
		if err != nil || n < 1 || (!p.kube() && stepText[0] == '+') {
			return 0, p.errf(f, col+len(rng)+1, part, "step %q must be a positive number", stepText)
		}
		if p.kube() {
			// robfig/cron takes any positive step; one past the range
			// leaves the start alone.
			n = min(n, hi-lo+1)
		} else if n > hi-lo+1 {
			return 0, p.errf(f, col+len(rng)+1, part, "step %d is larger than the field's range %d-%d", n, lo, hi)
		}
		step = n
	}
	if hashed {
		*occurrence++
		width := end - start + 1
		if stepText != "" {
			width = min(step, width)
		}
		start += hashValue(p.hashKey, f, *occurrence, width)
		if stepText == "" {
			end = start
		}
	}
	var b uint64
	for v := start; v <= end; v += step {
		b |= 1 << v
	}
	return b, nil
}

// value parses one number or name of field f.
func (p *parser) value(f int, text string, col int) (int, error) {
	if text == "" {
		return 0, p.errf(f, col, text, "missing value")
	}
	if f == fMonth || f == fDow {
		names := monthNames[:]
		base := 1
		if f == fDow {
			names, base = dowNames[:], 0
		}
		for i, n := range names {
			if strings.EqualFold(n, text) {
				return base + i, nil
			}
		}
	}
	n := 0
	digits := text
	if p.kube() && len(text) > 1 && text[0] == '+' {
		digits = text[1:] // robfig/cron reads numbers with strconv.Atoi
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			if f == fMonth || f == fDow {
				return 0, p.errf(f, col, text, "unknown %s %q", fieldNames[f], text)
			}
			if f != fDom && strings.ContainsAny(text, "LlWw#") {
				return 0, p.errf(f, col, text, "%q: L, W and # are only allowed in day of month (L, W) and day of week (L, #)", text)
			}
			return 0, p.errf(f, col, text, "%q is not a number", text)
		}
		if n > 1000 {
			break
		}
		n = n*10 + int(c-'0')
	}
	hi := fieldMax[f]
	if p.kube() && f == fDow {
		hi = 6 // robfig/cron has no 7 for Sunday
	}
	if n < fieldMin[f] || n > hi {
		return 0, p.errf(f, col, text, "value %s out of range %d-%d", text, fieldMin[f], hi)
	}
	return n, nil
}

// hashValue maps (key, field, occurrence) to [0, n): FNV-1a of the key, mixed
// with the field and occurrence by SplitMix64 so each H differs.
func hashValue(key string, f, occurrence, n int) int {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	h += uint64(f)<<32 | uint64(occurrence)
	h += 0x9e3779b97f4a7c15
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
	h = (h ^ (h >> 27)) * 0x94d049bb133111eb
	h ^= h >> 31
	return int(h % uint64(n))
}

// finish derives the lookup tables and rejects specs that never fire.
func (p *parser) finish(s *Spec) error {
	if s.every > 0 {
		return nil
	}
	domText, dowText := s.fields[fDom], s.fields[fDow]
	starFirst := func(t string) bool { return t != "" && (t[0] == '*' || t[0] == '?') }
	s.domStar = domText == "*" || domText == "?"
	s.dowStar = dowText == "*" || dowText == "?"
	s.and = starFirst(domText) || starFirst(dowText)
	if p.kube() {
		kubeFinish(s)
	}
	s.everyDay = s.domStar && s.dowStar && s.month == 0x1ffe
	s.fixedTime = !strings.HasPrefix(s.fields[fMin], "*") && !strings.HasPrefix(s.fields[fHour], "*")
	// Day d of a month starting on weekday f has weekday (f+d-1)%7: shift a
	// repeated weekday pattern instead of testing 217 (f, d) pairs.
	p7 := uint64(s.dow)
	pattern := p7 | p7<<7 | p7<<14 | p7<<21 | p7<<28 | p7<<35
	for first := 0; first < 7; first++ {
		s.dowByFirst[first] = uint32((pattern>>first)<<1) & 0xfffffffe
	}
	s.firstSec, s.lastSec = bits.TrailingZeros64(s.secs), bits.Len64(s.secs)-1
	s.firstMin, s.lastMin = bits.TrailingZeros64(s.mins), bits.Len64(s.mins)-1
	firstHour, lastHour := bits.TrailingZeros32(s.hours), bits.Len32(s.hours)-1
	s.firstTOD = int64(firstHour*3600 + s.firstMin*60 + s.firstSec)
	s.lastTOD = int64(lastHour*3600 + s.lastMin*60 + s.lastSec)
	s.perDay = int64(bits.OnesCount64(s.secs)) * int64(bits.OnesCount64(s.mins)) * int64(bits.OnesCount32(s.hours))

	if s.loc == time.UTC {
		s.fixedZone = true
	} else {
		t := time.Unix(0, 0).In(s.loc)
		if st, en := t.ZoneBounds(); st.IsZero() && en.IsZero() {
			_, off := t.Zone()
			s.fixedZone, s.off = true, int64(off)
		} else {
			s.zt = tableFor(s.loc)
		}
	}

	perYear := s.daysPerYear()
	if perYear == 0 {
		return p.neverFires(s)
	}
	if !s.fixedZone && perYear < 3 && !s.gapRuns() {
		// Few matching days a year: make sure they are not all swallowed by
		// daylight-saving gaps. Zone rules repeat every 400 years once the
		// transition table ends, so four centuries from 2100 decide it.
		from := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
		if _, ok := s.nextZone(from, from+401*366*secondsPerDay); !ok {
			return p.errf(-1, 1, "", "never fires: every matching time falls in a daylight-saving gap in %s", s.loc)
		}
	}
	return nil
}

// daysPerYear returns a lower bound on the matching days in any year, capped
// at 3 (enough to know the spec fires every year on several days).
func (s *Spec) daysPerYear() int {
	// Common shapes first, without evaluating month masks.
	if !s.domSpecial && !s.dowSpecial && s.month != 0 {
		if (s.and && s.dowStar && bits.OnesCount32(s.dom&0x1ffffffe) >= 3) ||
			((s.and && s.domStar) || !s.and) && s.dow != 0 {
			return 3
		}
	}
	total := 0
	for m := 1; m <= 12; m++ {
		if s.month&(1<<m) == 0 {
			continue
		}
		minPop := 32
		for n := monthLen(2001, m); n <= monthLen(2000, m); n++ {
			for first := 0; first < 7; first++ {
				minPop = min(minPop, bits.OnesCount32(s.dayMaskFor(n, first)))
			}
		}
		if minPop == 0 {
			// This month may be empty in some years: count it only if it
			// can fire at all, as one day, so a never-firing spec shows 0.
			for n := monthLen(2001, m); n <= monthLen(2000, m); n++ {
				for first := 0; first < 7; first++ {
					if s.dayMaskFor(n, first) != 0 {
						return max(total, 1)
					}
				}
			}
		}
		total += minPop
		if total >= 3 {
			return 3
		}
	}
	return total
}

func (p *parser) neverFires(s *Spec) error {
	f := fDom
	col := p.cols[fDom]
	var names []string
	for m := 1; m <= 12; m++ {
		if s.month&(1<<m) != 0 {
			names = append(names, time.Month(m).String())
		}
	}
	if !s.domSpecial && s.dom != 0 && s.and && s.dowStar {
		day := bits.TrailingZeros32(s.dom)
		verb := "has"
		if len(names) > 1 {
			verb = "have"
		}
		return p.errf(f, col, s.fields[fDom], "never fires: %s %s no day %d", joinAnd(names), verb, day)
	}
	return p.errf(f, col, s.fields[fDom], "never fires: no day in %s matches both day of month %q and day of week %q", joinAnd(names), s.fields[fDom], s.fields[fDow])
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
