package catalog

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// kind is the shape an attribute value must have.
type kind int

const (
	kString      kind = iota // a string (numbers are converted)
	kStrings                 // a string or an array of strings
	kBool                    // true/false (or the strings "true"/"false")
	kInt                     // an integer (or a string of digits)
	kNumber                  // an integer or float (or a numeric string)
	kEnum                    // one of enum (strings, or true/false)
	kHash                    // a hash
	kAny                     // anything
	kAbsPath                 // an absolute path
	kIntOrString             // an integer or a string
	kReturns                 // an integer, digit string, or array of them
)

type attrSpec struct {
	kind kind
	enum []string
}

// typeSpec describes a built-in resource type: its attributes, its namevar,
// and a check across attributes.
type typeSpec struct {
	namevar string
	attrs   map[string]attrSpec
	check   func(c *compiler, r int32)
}

// builtinTypes is the registry of resource types almanac manages; the apply
// engine and the daemon act on exactly these attributes.
var builtinTypes = map[string]*typeSpec{
	"exec": {namevar: "command", attrs: map[string]attrSpec{
		"command": {kind: kStrings}, "creates": {kind: kStrings}, "cwd": {kind: kAbsPath},
		"environment": {kind: kStrings}, "group": {kind: kIntOrString}, "user": {kind: kIntOrString},
		"logoutput": {kind: kEnum, enum: []string{"true", "false", "on_failure"}},
		"onlyif":    {kind: kStrings}, "unless": {kind: kStrings}, "path": {kind: kStrings},
		"provider": {kind: kEnum, enum: []string{"shell", "posix"}},
		"refresh":  {kind: kString}, "refreshonly": {kind: kBool}, "returns": {kind: kReturns},
		"timeout": {kind: kNumber}, "tries": {kind: kInt}, "try_sleep": {kind: kNumber}, "umask": {kind: kString},
	}, check: checkExec},
	"file": {namevar: "path", attrs: map[string]attrSpec{
		"path":    {kind: kAbsPath},
		"ensure":  {kind: kEnum, enum: []string{"present", "absent", "file", "directory", "link"}},
		"content": {kind: kString}, "mode": {kind: kString}, "owner": {kind: kIntOrString},
		"group": {kind: kIntOrString}, "target": {kind: kString}, "force": {kind: kBool},
		"replace": {kind: kBool}, "backup": {kind: kAny},
	}, check: checkFile},
	"service": {namevar: "name", attrs: map[string]attrSpec{
		"name":   {kind: kString},
		"ensure": {kind: kEnum, enum: []string{"stopped", "running", "false", "true"}},
		"enable": {kind: kEnum, enum: []string{"true", "false", "manual", "mask"}},
		"start":  {kind: kString}, "stop": {kind: kString}, "status": {kind: kString},
		"restart": {kind: kString}, "hasrestart": {kind: kBool}, "hasstatus": {kind: kBool},
		"pattern": {kind: kString}, "binary": {kind: kString}, "provider": {kind: kString},
	}},
	"notify": {namevar: "name", attrs: map[string]attrSpec{
		"name": {kind: kString}, "message": {kind: kAny}, "withpath": {kind: kBool},
	}},
	"schedule": {namevar: "name", attrs: map[string]attrSpec{
		"name": {kind: kString}, "range": {kind: kAny},
		"period":      {kind: kEnum, enum: []string{"hourly", "daily", "weekly", "monthly", "never"}},
		"periodmatch": {kind: kEnum, enum: []string{"number", "distance"}},
		"repeat":      {kind: kAny}, "weekday": {kind: kAny}, "windows": {kind: kAny}, "time_zone": {kind: kString},
	}, check: checkSchedule},
	"reboot_group": {namevar: "name", attrs: map[string]attrSpec{
		"name": {kind: kString}, "max_holders": {kind: kInt}, "window": {kind: kString},
		"secret": {kind: kString}, "max_hold": {kind: kString},
	}},
	"job": {namevar: "name", attrs: map[string]attrSpec{
		"name": {kind: kString}, "cron": {kind: kString}, "at": {kind: kString}, "time_zone": {kind: kString},
		"command": {kind: kStrings}, "env": {kind: kHash}, "cwd": {kind: kAbsPath},
		"starting_deadline_seconds": {kind: kInt},
		"concurrency_policy":        {kind: kEnum, enum: []string{"Allow", "Forbid", "Replace"}},
		"suspend":                   {kind: kBool}, "backoff_limit": {kind: kInt}, "timeout": {kind: kNumber},
		"successful_jobs_history_limit": {kind: kInt}, "failed_jobs_history_limit": {kind: kInt},
		"notify_on": {kind: kStrings}, "alert_after": {kind: kString}, "run_as": {kind: kString},
		"cron_dialect": {kind: kEnum, enum: []string{"vixie", "kubernetes"}}, "on_calendar": {kind: kStrings},
		"randomized_delay": {kind: kNumber}, "nodes": {kind: kString},
		"window": {kind: kAny}, "max_parallel": {kind: kIntOrString}, "max_failures": {kind: kInt},
		"wave_order": {kind: kEnum, enum: []string{"name", "random"}}, "reboot_group": {kind: kString},
		"catch_up":   {kind: kEnum, enum: []string{"latest", "all", "none"}},
		"manual":     {kind: kBool},
		"kubernetes": {kind: kHash},
	}, check: checkJob},
}

// BuiltinSchedules are the schedules that exist without being declared, as
// in Puppet; a schedule metaparameter may name them.
var BuiltinSchedules = map[string]map[string]any{
	"puppet":  {"period": "hourly", "repeat": int64(2)},
	"hourly":  {"period": "hourly", "repeat": int64(1)},
	"daily":   {"period": "daily", "repeat": int64(1)},
	"weekly":  {"period": "weekly", "repeat": int64(1)},
	"monthly": {"period": "monthly", "repeat": int64(1)},
	"never":   {"period": "never", "repeat": int64(1)},
}

// ValidateSchedule, when set, validates a schedule resource's attributes
// (range, period, periodmatch, repeat, weekday, windows, time_zone) with the
// Puppet-schedule implementation. An error that has an Attribute() string
// method is reported as "Parameter <attr> failed on Schedule[<title>]:
// <message>"; any other error as "Schedule[<title>]: <message>". Nil skips
// the check.
var ValidateSchedule func(title string, attrs map[string]any) error

// paramFail reports Puppet's "Parameter x failed on Ref: msg".
func (c *compiler) paramFail(r int32, attr, format string, args ...any) {
	pos, ok := c.attrPos(r, attr)
	if !ok {
		pos = c.posOf(r)
	}
	c.errorf(pos, "Parameter %s failed on %s: %s", attr, c.ref(r), fmt.Sprintf(format, args...))
}

// validate checks a built-in resource's attributes against its type and
// normalizes values (numeric strings, boolean strings). Its attributes are
// sorted by name.
func (c *compiler) validate(r int32, spec *typeSpec) {
	rc := c.rec(r)
	attrs := rc.attrs()
	for k := range attrs {
		name, v := attrs[k].name, attrs[k].val
		if metaparams[name] {
			c.validateMeta(r, name, v)
			continue
		}
		a, ok := spec.attrs[name]
		if !ok {
			c.errorf(c.pos(attrs[k].pos), "%s: has no parameter named '%s'", c.ref(r), name)
			continue
		}
		if nv, ok := c.checkKind(r, name, a, v); ok {
			attrs[k].val = nv
		}
	}
	if _, set := c.get(r, spec.namevar); !set {
		rc.flags |= fNameTitle
		if _, ok := c.checkKind(r, spec.namevar, spec.attrs[spec.namevar], rc.title); !ok {
			return
		}
	}
	if spec.check != nil {
		spec.check(c, r)
	}
}

func (c *compiler) checkKind(r int32, name string, a attrSpec, v any) (any, bool) {
	switch a.kind {
	case kAny:
		return v, true
	case kString:
		if _, isStr := v.(string); !isStr && name == "mode" {
			c.paramFail(r, name, "The file mode specification must be a string, not '%s'", typeName(v))
			return nil, false
		}
		switch x := v.(type) {
		case string:
			return v, true
		case int64, float64:
			return toString(x), true
		}
		c.paramFail(r, name, "Invalid value %s: expected a String", inspect(v))
	case kAbsPath:
		s, ok := v.(string)
		if ok && strings.HasPrefix(s, "/") {
			return v, true
		}
		if name == "path" && c.typeOf(r) == "file" {
			c.paramFail(r, name, "File paths must be fully qualified, not '%s'", toString(v))
		} else {
			c.paramFail(r, name, "%s must be an absolute path, not '%s'", name, toString(v))
		}
	case kStrings:
		switch x := v.(type) {
		case string:
			return v, true
		case []any:
			for _, e := range x {
				if _, ok := e.(string); !ok {
					c.paramFail(r, name, "Invalid value %s: expected a String or an Array of Strings", inspect(v))
					return nil, false
				}
			}
			return v, true
		}
		c.paramFail(r, name, "Invalid value %s: expected a String or an Array of Strings", inspect(v))
	case kBool:
		switch x := v.(type) {
		case bool:
			return x, true
		case string:
			switch x {
			case "true":
				return true, true
			case "false":
				return false, true
			}
		}
		c.paramFail(r, name, "Invalid value %s. Valid values are true, false.", inspect(v))
	case kInt:
		switch x := v.(type) {
		case int64:
			return v, true
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return n, true
			}
		}
		c.paramFail(r, name, "Invalid value %s: expected an Integer", inspect(v))
	case kNumber:
		switch x := v.(type) {
		case int64, float64:
			return x, true
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return n, true
			}
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return f, true
			}
		}
		c.paramFail(r, name, "Invalid value %s: expected a number", inspect(v))
	case kIntOrString:
		switch v.(type) {
		case int64, string:
			return v, true
		}
		c.paramFail(r, name, "Invalid value %s: expected an Integer or a String", inspect(v))
	case kReturns:
		ok := true
		for _, e := range flatten([]any{v}, nil) {
			switch x := e.(type) {
			case int64:
			case string:
				if _, err := strconv.Atoi(x); err != nil {
					ok = false
				}
			default:
				ok = false
			}
		}
		if ok {
			return v, true
		}
		c.paramFail(r, name, "Invalid value %s: expected exit codes (Integers)", inspect(v))
	case kHash:
		if _, ok := v.(*hashV); ok {
			return v, true
		}
		c.paramFail(r, name, "Invalid value %s: expected a Hash", inspect(v))
	case kEnum:
		s := toString(v)
		switch v.(type) {
		case string, bool:
			for _, e := range a.enum {
				if s == e {
					if s == "true" || s == "false" {
						if _, isBool := v.(bool); isBool && (name == "ensure" || name == "enable" || name == "logoutput") {
							return v, true
						}
					}
					if _, isStr := v.(string); isStr {
						return v, true
					}
					return s, true
				}
			}
		}
		c.paramFail(r, name, "Invalid value %s. Valid values are %s.", inspect(v), strings.Join(a.enum, ", "))
	}
	return nil, false
}

// inspect quotes a value the way Ruby's inspect does in Puppet's messages.
func inspect(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	if v == nil {
		return "nil"
	}
	return toString(v)
}

func (c *compiler) validateMeta(r int32, name string, v any) {
	switch name {
	case "noop":
		if _, ok := v.(bool); !ok {
			if s, isStr := v.(string); isStr && (s == "true" || s == "false") {
				c.replace(r, name, s == "true")
				return
			}
			c.paramFail(r, name, "Invalid value %s. Valid values are true, false.", inspect(v))
		}
	case "schedule":
		s, ok := v.(string)
		if !ok {
			c.paramFail(r, name, "Invalid value %s: expected the name of a schedule", inspect(v))
			return
		}
		if _, builtin := BuiltinSchedules[s]; !builtin {
			if sr := c.lookup("schedule", s); (sr < 0 || c.rec(sr).is(fVirtual)) && (c.opts.Schedules == nil || !c.opts.Schedules(s)) {
				c.errorf(c.attrPosOr(r, name), "Could not find schedule %s", s)
			}
		}
	case "tag":
		for _, t := range flatten([]any{v}, nil) {
			s, ok := t.(string)
			if !ok || !validTag.MatchString(s) {
				c.paramFail(r, name, "Invalid tag %s", inspect(t))
			}
		}
	}
}

// getString returns attribute name of record r when it is a string.
func (c *compiler) getString(r int32, name string) (string, bool) {
	v, _ := c.get(r, name)
	s, ok := v.(string)
	return s, ok
}

// has reports whether record r has attribute name.
func (c *compiler) has(r int32, name string) bool {
	_, ok := c.get(r, name)
	return ok
}

func checkFile(c *compiler, r int32) {
	p, _ := c.getString(r, "path")
	if p != "" && p != "/" && path.Clean(p) != strings.TrimSuffix(p, "/") {
		c.paramFail(r, "path", "File paths must be normalized, not '%s'", p)
	}
	ensure, _ := c.getString(r, "ensure")
	if c.has(r, "content") && (ensure == "directory" || ensure == "link" || ensure == "absent") {
		c.paramFail(r, "content", "content cannot be set with ensure => %s", ensure)
	}
	if c.has(r, "target") && ensure != "link" && ensure != "" {
		c.paramFail(r, "target", "target requires ensure => link")
	}
	if ensure == "link" {
		if !c.has(r, "target") {
			c.paramFail(r, "ensure", "ensure => link requires a target")
		}
	}
	if m, ok := c.getString(r, "mode"); ok && !fileMode.MatchString(m) {
		c.paramFail(r, "mode", "The file mode specification is invalid: %s", inspect(m))
	}
}

var fileMode = regexp.MustCompile(`^[0-7]{3,4}$`)

// scheduleAttrs are the schedule attributes handed to ValidateSchedule.
var scheduleAttrs = []string{"range", "period", "periodmatch", "repeat", "weekday", "windows", "time_zone"}

// attributeError is implemented by ValidateSchedule errors naming an
// attribute.
type attributeError interface {
	Attribute() string
}

func checkSchedule(c *compiler, r int32) {
	if ValidateSchedule == nil {
		return
	}
	attrs := map[string]any{}
	for _, a := range scheduleAttrs {
		if v, ok := c.get(r, a); ok {
			x, err := export(v)
			if err != nil {
				c.paramFail(r, a, "%v", err)
				return
			}
			attrs[a] = x
		}
	}
	err := ValidateSchedule(c.rec(r).title, attrs)
	if err == nil {
		return
	}
	var ae attributeError
	if errors.As(err, &ae) {
		c.paramFail(r, ae.Attribute(), "%s", err.Error())
		return
	}
	c.errorf(c.posOf(r), "%s: %s", c.ref(r), err.Error())
}

// btoi is 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func checkJob(c *compiler, r int32) {
	hasCron := c.has(r, "cron")
	hasCalendar := c.has(r, "on_calendar")
	at, hasAt := c.getString(r, "at")
	v, _ := c.get(r, "manual")
	manual := v == true
	if n := btoi(hasCron) + btoi(hasCalendar) + btoi(hasAt) + btoi(manual); n != 1 {
		c.errorf(c.posOf(r), "%s: exactly one of 'cron', 'on_calendar' or 'at' is required, or 'manual => true' for a job that runs only when triggered", c.ref(r))
	}
	if hasAt {
		if _, err := time.Parse(time.RFC3339, at); err != nil {
			c.paramFail(r, "at", "Invalid value %s: expected an RFC 3339 time like 2025-01-31T02:00:00Z", inspect(at))
		}
	}
	if !c.has(r, "command") && !c.has(r, "kubernetes") {
		c.errorf(c.posOf(r), "%s: the 'command' attribute is required", c.ref(r))
	}
	// The values' bounds are the job package's rules, checked with the
	// resource's position when the catalog's jobs are built
	// (manifestjob.FromCatalog), as for jobs from the API.
}
