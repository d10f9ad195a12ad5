// Package zincati reads the update-strategy fragments of Zincati, the Fedora
// CoreOS update agent, as Zincati writes them, and turns their periodic
// reboot windows into a weekly calendar:
//
//	[updates]
//	strategy = "periodic"
//
//	[updates.periodic]
//	time_zone = "Europe/Berlin"   # optional: IANA name, tag form or "localtime"
//
//	[[updates.periodic.window]]
//	days = [ "Sat", "Sun" ]
//	start_time = "23:30"
//	length_minutes = 60
//
// Several fragments merge as Zincati merges its config.d directories: the
// windows of every fragment add up, and for updates.strategy and
// updates.periodic.time_zone the last fragment that sets one wins. Keys that
// Zincati knows but that do not affect windows (identity, cincinnati, agent
// timing, fleet_lock) are accepted and ignored; any other key is an error, so
// a misspelt key cannot silently drop a window. Every error names the file and,
// where it can be found, the line and column.
package zincati

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/weekly"
)

// Error is a problem in one fragment. Line and Col are 1-based, 0 when
// unknown. Err says what is wrong; for a bad window field it wraps a
// *weekly.FieldError, for a bad zone a *calendar.UnknownZoneError.
type Error struct {
	File      string
	Line, Col int
	Err       error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	b.WriteString(strings.Join(strings.Fields(e.Err.Error()), " "))
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoWindows is returned (wrapped) when fragments define no window at all:
// a periodic strategy without windows would never allow a reboot.
var ErrNoWindows = errors.New("no [[updates.periodic.window]] entries: nothing could ever run")

// Fragment is what one file says about the periodic strategy.
type Fragment struct {
	File     string
	Strategy string // updates.strategy, "" when the file does not set it
	TimeZone string // updates.periodic.time_zone as written, "" when not set
	Windows  []weekly.Window

	strategyPos, zonePos position
}

// known is the Zincati fragment schema: every key it has. Beside these,
// the keys of a window entry (days, start_time, length_minutes) are
// known to the parser, which parseWindow checks with messages of its own;
// any other key, including one below a key that wants a plain value, is
// unknown.
var known = map[string]bool{
	"agent": true, "agent.timing": true, "agent.timing.steady_interval_secs": true,
	"cincinnati": true, "cincinnati.base_url": true,
	"identity": true, "identity.group": true, "identity.node_uuid": true,
	"identity.rollout_wariness": true, "identity.throttle_permille": true,
	"updates": true, "updates.allow_downgrade": true, "updates.enabled": true,
	"updates.strategy": true, "updates.fleet_lock": true, "updates.fleet_lock.base_url": true,
	"updates.periodic": true, "updates.periodic.time_zone": true, windowKey: true,
}

// unknownKey returns the first key of the document, in the order it
// appears, that the schema does not have.
func unknownKey(md toml.MetaData) (string, bool) {
	for _, k := range md.Keys() {
		if known[k.String()] || len(k) > 1 && k[:len(k)-1].String() == windowKey {
			continue
		}
		return k.String(), true
	}
	return "", false
}

// tables are the keys that must hold a table (and the window key an array
// of tables) for the values below them to be found.
var tables = []string{"agent", "agent.timing", "cincinnati", "identity", "updates",
	"updates.fleet_lock", "updates.periodic"}

const windowKey = "updates.periodic.window"

// Parse reads one fragment. file names it in errors.
func Parse(file string, src []byte) (*Fragment, error) {
	// A UTF-8 byte-order mark at the start is skipped, as TOML allows.
	text := strings.TrimPrefix(string(src), "\ufeff")
	fail := func(p position, err error) error {
		return &Error{File: file, Line: p.line, Col: p.col, Err: err}
	}
	if p, err := checkNesting(text); err != nil {
		return nil, fail(p, err)
	}
	loc := newLocator(text)
	// The document is decoded once, into plain values: a value of the
	// wrong type becomes a positioned error of ours rather than a decoding
	// failure, and the metadata's keys, in document order, give the first
	// unknown one.
	var raw map[string]any
	md, err := toml.Decode(text, &raw)
	if err != nil {
		return nil, syntaxError(file, text, err)
	}
	if err := checkShape(raw, loc, fail); err != nil {
		return nil, err
	}
	if k, ok := unknownKey(md); ok {
		p, _ := loc.key(k)
		return nil, fail(p, fmt.Errorf("unknown key %s", k))
	}
	f := &Fragment{File: file}
	if v, ok := lookup(raw, "updates.strategy"); ok {
		s, err := str(v)
		p, _ := loc.key("updates.strategy")
		if err != nil {
			return nil, fail(p, fmt.Errorf("updates.strategy: %w", err))
		}
		f.Strategy, f.strategyPos = s, p
	}
	if v, ok := lookup(raw, "updates.periodic.time_zone"); ok {
		s, err := str(v)
		p, _ := loc.value("updates.periodic.time_zone", "")
		if err != nil {
			return nil, fail(p, fmt.Errorf("updates.periodic.time_zone: %w", err))
		}
		f.TimeZone, f.zonePos = s, p
	}
	for i, entry := range windowEntries(raw) {
		w, err := parseWindow(entry, i, loc, fail)
		if err != nil {
			return nil, err
		}
		f.Windows = append(f.Windows, w)
	}
	return f, nil
}

// checkShape makes sure every known table key holds a table, so that a
// table written as a plain value is a positioned error rather than a
// table whose keys silently go unread.
func checkShape(raw map[string]any, loc *locator, fail func(position, error) error) error {
	for _, key := range tables {
		v, ok := lookup(raw, key)
		if !ok {
			continue
		}
		if _, isTable := v.(map[string]any); !isTable {
			p, _ := loc.key(key)
			return fail(p, fmt.Errorf("%s: want a table, got %s", key, describe(v)))
		}
	}
	v, ok := lookup(raw, windowKey)
	if !ok {
		return nil
	}
	switch v := v.(type) {
	case []map[string]any:
		return nil
	case []any:
		for _, e := range v {
			if _, isTable := e.(map[string]any); !isTable {
				p, _ := loc.key(windowKey)
				return fail(p, fmt.Errorf("%s: want [[%s]] tables, got an array holding %s", windowKey, windowKey, describe(e)))
			}
		}
		return nil
	default:
		p, _ := loc.key(windowKey)
		return fail(p, fmt.Errorf("%s: want [[%s]] tables, got %s", windowKey, windowKey, describe(v)))
	}
}

func lookup(m map[string]any, key string) (any, bool) {
	var v any = m
	for _, part := range strings.Split(key, ".") {
		t, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = t[part]; !ok {
			return nil, false
		}
	}
	return v, true
}

// windowEntries returns the [[updates.periodic.window]] tables of a
// document checkShape accepted: an array of tables, or an array of inline
// tables.
func windowEntries(raw map[string]any) []map[string]any {
	v, _ := lookup(raw, windowKey)
	switch v := v.(type) {
	case []map[string]any:
		return v
	case []any:
		out := make([]map[string]any, len(v))
		for i, e := range v {
			out[i] = e.(map[string]any)
		}
		return out
	}
	return nil
}

// parseWindow checks one [[updates.periodic.window]] entry (index i, counted
// from 0 in the file) and builds the window.
func parseWindow(entry map[string]any, i int, loc *locator, fail func(position, error) error) (weekly.Window, error) {
	base := fmt.Sprintf("%s[%d]", windowKey, i)
	where := func(field string) position {
		p, _ := loc.key(base+"."+field, base, windowKey)
		return p
	}
	valueAt := func(field, lit string) position {
		if p, ok := loc.value(base+"."+field, lit); ok {
			return p
		}
		return where(field)
	}
	wrap := func(err error) error { return fmt.Errorf("window %d: %w", i+1, err) }
	keys := make([]string, 0, len(entry))
	for k := range entry {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "days", "start_time", "length_minutes":
		default:
			return weekly.Window{}, fail(where(k), wrap(fmt.Errorf("unknown key %s", k)))
		}
	}
	for _, k := range []string{"days", "start_time", "length_minutes"} {
		if _, ok := entry[k]; !ok {
			p, _ := loc.key(base, windowKey)
			return weekly.Window{}, fail(p, wrap(fmt.Errorf("missing %s", k)))
		}
	}
	list, ok := entry["days"].([]any)
	if !ok {
		return weekly.Window{}, fail(valueAt("days", ""), wrap(fmt.Errorf("days: want an array of day names, got %s", describe(entry["days"]))))
	}
	days := make([]string, len(list))
	for j, d := range list {
		s, ok := d.(string)
		if !ok {
			return weekly.Window{}, fail(valueAt("days", ""), wrap(fmt.Errorf("days[%d]: want a day name, got %s", j, describe(d))))
		}
		days[j] = s
	}
	start, err := str(entry["start_time"])
	if err != nil {
		return weekly.Window{}, fail(valueAt("start_time", ""), wrap(fmt.Errorf("start_time: %w", err)))
	}
	length, ok := entry["length_minutes"].(int64)
	if !ok {
		return weekly.Window{}, fail(valueAt("length_minutes", ""), wrap(fmt.Errorf("length_minutes: want an integer, got %s", describe(entry["length_minutes"]))))
	}
	w, err := weekly.ParseWindow(days, start, length)
	if err != nil {
		var fe *weekly.FieldError
		p := where("")
		if errors.As(err, &fe) {
			lit := ""
			if fe.Field == "days" && fe.Index >= 0 {
				lit = days[fe.Index]
			}
			p = valueAt(fe.Field, lit)
		}
		return weekly.Window{}, fail(p, wrap(err))
	}
	return w, nil
}

func str(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", fmt.Errorf("want a string, got %s", describe(v))
}

// describe names a decoded TOML value's type and shows it briefly.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "string " + strconv.Quote(clip(v))
	case int64:
		return "integer " + strconv.FormatInt(v, 10)
	case float64:
		return "float " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "datetime " + v.Format(time.RFC3339)
	}
	return fmt.Sprintf("%T", v)
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

var lineRE = regexp.MustCompile(`^toml: line (\d+)`)

// syntaxError turns a TOML library error into a positioned one.
func syntaxError(file, src string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		e := &Error{File: file, Line: pe.Position.Line, Err: errors.New(pe.Message)}
		if pe.Position.Start > 0 && pe.Position.Start <= len(src) {
			p := (&locator{src: src}).at(pe.Position.Start)
			switch {
			case p.line == e.Line:
				e.Col = p.col
			case p.line == e.Line-1 && pe.Position.Start < len(src) && src[pe.Position.Start] == '\n':
				// The library counts the line break that ended a
				// line as the start of the next; the mistake is at
				// the end of the line it broke.
				e.Line, e.Col = p.line, p.col
			}
		}
		return e
	}
	msg := err.Error()
	e := &Error{File: file, Err: errors.New(strings.TrimPrefix(msg, "toml: "))}
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
	}
	return e
}

// Config is the merged periodic-strategy configuration of several fragments.
type Config struct {
	Strategy     string // the last updates.strategy set, "" when none is
	StrategyFile string // the fragment that set it
	TimeZone     string // the zone's IANA name ("UTC" when none is set)
	Windows      []weekly.Window
	Calendar     *weekly.Calendar
}

// Merge combines fragments in order: windows add up, and the last fragment
// that sets updates.strategy or updates.periodic.time_zone decides it. It
// fails when the strategy ends up set to something other than "periodic"
// (Zincati would then ignore the windows), when the zone is unknown, and when
// there are no windows at all ([ErrNoWindows]).
func Merge(frags ...*Fragment) (*Config, error) {
	c := &Config{TimeZone: "UTC"}
	var stratFrag, zoneFrag *Fragment
	for _, f := range frags {
		if f.Strategy != "" {
			stratFrag = f
		}
		if f.TimeZone != "" {
			zoneFrag = f
		}
		c.Windows = append(c.Windows, f.Windows...)
	}
	if stratFrag != nil {
		c.Strategy, c.StrategyFile = stratFrag.Strategy, stratFrag.File
		if c.Strategy != "periodic" {
			p := stratFrag.strategyPos
			return nil, &Error{File: stratFrag.File, Line: p.line, Col: p.col,
				Err: fmt.Errorf("updates.strategy is %q, not \"periodic\": Zincati would not use reboot windows", c.Strategy)}
		}
	}
	loc := time.UTC
	if zoneFrag != nil {
		var err error
		loc, c.TimeZone, err = loadZone(zoneFrag.TimeZone)
		if err != nil {
			p := zoneFrag.zonePos
			return nil, &Error{File: zoneFrag.File, Line: p.line, Col: p.col,
				Err: fmt.Errorf("updates.periodic.time_zone: %w", err)}
		}
	}
	if len(c.Windows) == 0 {
		names := make([]string, len(frags))
		for i, f := range frags {
			names[i] = f.File
		}
		return nil, fmt.Errorf("%s: %w", strings.Join(names, ", "), ErrNoWindows)
	}
	c.Calendar = weekly.NewCalendar(loc, c.Windows...)
	return c, nil
}

// LocalZone returns the IANA name of the machine's zone for time_zone =
// "localtime". Like Zincati it follows the /etc/localtime symbolic link into
// the zone database and falls back to UTC when there is no such link. Tests
// replace it.
var LocalZone = func() (string, error) {
	if _, err := os.Readlink("/etc/localtime"); err != nil {
		return "UTC", nil
	}
	target, err := filepath.EvalSymlinks("/etc/localtime")
	if err != nil {
		return "", fmt.Errorf("localtime: %w", err)
	}
	for _, dir := range []string{"/usr/share/zoneinfo/", "/usr/share/zoneinfo/posix/"} {
		if name, ok := strings.CutPrefix(target, dir); ok {
			return name, nil
		}
	}
	return "", fmt.Errorf("localtime: /etc/localtime points to %s, outside /usr/share/zoneinfo", target)
}

func loadZone(name string) (*time.Location, string, error) {
	if name == "localtime" {
		local, err := LocalZone()
		if err != nil {
			return nil, "", err
		}
		name = local
	}
	canon, err := calendar.CanonicalZone(name)
	if err != nil {
		return nil, "", err
	}
	loc, err := calendar.LoadZone(canon)
	if err != nil {
		return nil, "", err
	}
	return loc, canon, nil
}
