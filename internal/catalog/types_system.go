package catalog

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/posixid"
)

// This file declares the types that manage the system's packages and
// accounts, and Puppet's cron entries, which almanac compiles to jobs.

func init() {
	builtinTypes["package"] = &typeSpec{namevar: "name", attrs: map[string]attrSpec{
		"name": {kind: kString}, "ensure": {kind: kAny},
		"provider":        {kind: kEnum, enum: []string{"apt", "dnf", "yum"}},
		"install_options": {kind: kStrings}, "uninstall_options": {kind: kStrings},
	}, check: checkPackage}
	builtinTypes["user"] = &typeSpec{namevar: "name", attrs: map[string]attrSpec{
		"name":   {kind: kString},
		"ensure": {kind: kEnum, enum: []string{"present", "absent"}},
		"uid":    {kind: kInt}, "gid": {kind: kIntOrString}, "home": {kind: kAbsPath},
		"managehome": {kind: kBool}, "shell": {kind: kAbsPath}, "groups": {kind: kStrings},
		"membership": {kind: kEnum, enum: []string{"inclusive", "minimum"}},
		"system":     {kind: kBool}, "comment": {kind: kString}, "allowdupe": {kind: kBool},
	}, check: checkUser}
	builtinTypes["group"] = &typeSpec{namevar: "name", attrs: map[string]attrSpec{
		"name":   {kind: kString},
		"ensure": {kind: kEnum, enum: []string{"present", "absent"}},
		"gid":    {kind: kInt}, "system": {kind: kBool}, "allowdupe": {kind: kBool},
	}, check: checkGroup}
	builtinTypes["cron"] = &typeSpec{namevar: "name", attrs: map[string]attrSpec{
		"name": {kind: kString}, "command": {kind: kString},
		"ensure":  {kind: kEnum, enum: []string{"present", "absent"}},
		"special": {kind: kAny}, "minute": {kind: kAny}, "hour": {kind: kAny}, "monthday": {kind: kAny},
		"month": {kind: kAny}, "weekday": {kind: kAny}, "environment": {kind: kAny},
		"user": {kind: kString}, "time_zone": {kind: kString},
	}, check: checkCron}
}

func checkPackage(c *compiler, r int32) {
	v, set := c.get(r, "ensure")
	if !set {
		return
	}
	switch x := v.(type) {
	case string:
		if x != "" {
			return
		}
	case int64, float64:
		c.replace(r, "ensure", toString(x))
		return
	}
	c.paramFail(r, "ensure", "Invalid value %s. Valid values are present, absent, purged, installed, latest. Valid values match /./.", inspect(v))
}

// accountName is what useradd and groupadd accept as a name.
var accountName = regexp.MustCompile(`^[a-z_][a-z0-9_.-]*\$?$`)

func checkAccountName(c *compiler, r int32) {
	if n, _ := c.getString(r, "name"); !accountName.MatchString(n) || len(n) > 32 {
		c.paramFail(r, "name", "%s is not a valid name (lower-case letters, digits, '_', '-' and '.', starting with a letter or '_', at most 32 characters)", inspect(n))
	}
}

func checkUser(c *compiler, r int32) {
	checkAccountName(c, r)
	uid, _ := c.get(r, "uid")
	if uid, ok := uid.(int64); ok && posixid.CheckInt(uid) != nil {
		c.paramFail(r, "uid", "Invalid UID %d", uid)
	}
	if gid, ok := c.getString(r, "gid"); ok {
		if n, err := strconv.ParseInt(gid, 10, 64); err == nil {
			c.replace(r, "gid", n)
		} else if posixid.Numeric(gid) {
			c.paramFail(r, "gid", "Invalid GID %s", gid)
		}
	}
	checkGID(c, r)
	groups, _ := c.get(r, "groups")
	for _, g := range flatten([]any{groups}, nil) {
		s, ok := g.(string)
		switch {
		case g == nil:
		case !ok || isDigits(s):
			c.paramFail(r, "groups", "Group names must be provided, not GID numbers.")
		case strings.Contains(s, ","):
			c.paramFail(r, "groups", "Group names must be provided as an array, not a comma-separated list.")
		case s == "":
			c.paramFail(r, "groups", "Group names must not be empty. If you want to specify \"no groups\" pass an empty array")
		}
	}
}

func checkGroup(c *compiler, r int32) {
	checkAccountName(c, r)
	checkGID(c, r)
}

// checkGID refuses a numeric gid outside what posixid accepts.
func checkGID(c *compiler, r int32) {
	gid, _ := c.get(r, "gid")
	if gid, ok := gid.(int64); ok && posixid.CheckInt(gid) != nil {
		c.paramFail(r, "gid", "Invalid GID %d", gid)
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// cronFields are the time fields of a cron entry, their bounds and, for
// weekday and month, the names Puppet accepts.
var cronFields = []struct {
	name         string
	lower, upper int
	names        []string
}{
	{"minute", 0, 59, nil},
	{"hour", 0, 23, nil},
	{"monthday", 1, 31, nil},
	{"month", 1, 12, []string{"", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}},
	{"weekday", 0, 7, []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}},
}

// CronSpecials are the values of a cron entry's special attribute.
var CronSpecials = []string{"reboot", "yearly", "annually", "monthly", "weekly", "daily", "midnight", "hourly", "absent"}

var cronStep = regexp.MustCompile(`^(\*/[0-9]+|[0-9]+-[0-9]+|[0-9]+-[0-9]+/[0-9]+)$`)

// checkCron validates a cron entry as Puppet's cron type munges it: each
// time field becomes an array of strings, '*' and 'absent' become
// "absent", names become numbers.
func checkCron(c *compiler, r int32) {
	special, hasSpecial := c.get(r, "special")
	if hasSpecial {
		s, ok := special.(string)
		if !ok || !slices.Contains(CronSpecials, s) {
			c.paramFail(r, "special", "Invalid special schedule %s", inspect(special))
		}
	}
	for _, f := range cronFields {
		v, set := c.get(r, f.name)
		if !set {
			continue
		}
		var out []any
		for _, e := range flatten([]any{v}, nil) {
			m, ok := mungeCronValue(e, f.lower, f.upper, f.names)
			if !ok {
				c.paramFail(r, f.name, "%s is not a valid %s", toString(e), f.name)
				continue
			}
			out = append(out, m)
		}
		c.replace(r, f.name, out)
		if hasSpecial && special != "absent" && !(len(out) == 1 && out[0] == "absent") {
			c.errorf(c.posOf(r), "%s cannot specify both a special schedule and a value for %s", c.ref(r), f.name)
		}
	}
	env, _ := c.get(r, "environment")
	for _, e := range flatten([]any{env}, nil) {
		s, ok := e.(string)
		if e != nil && (!ok || !cronEnv.MatchString(s) && s != "absent") {
			c.paramFail(r, "environment", "Invalid environment setting %s", inspect(e))
		}
	}
	if cmd, ok := c.getString(r, "command"); ok {
		c.replace(r, "command", strings.TrimSpace(cmd))
	}
}

var cronEnv = regexp.MustCompile(`^\s*(\w+)\s*=\s*(.*)\s*$`)

func mungeCronValue(v any, lower, upper int, names []string) (string, bool) {
	s := toString(v)
	switch {
	case s == "absent" || s == "*":
		return "absent", true
	case cronStep.MatchString(s):
		return s, true
	case isDigits(s):
		n, err := strconv.Atoi(s)
		return strconv.Itoa(n), err == nil && n >= lower && n <= upper
	}
	low := strings.ToLower(s)
	for i, name := range names {
		if name != "" && (low == name || len(low) == 3 && strings.HasPrefix(name, low)) {
			return strconv.Itoa(i), true
		}
	}
	return "", false
}
