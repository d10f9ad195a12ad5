// Package posixid holds the one rule for the user and group ids almanac
// accepts: in run_as, in imported crontabs and timers, and in the user and
// group resources. A numeric id must be a plain decimal in 0–4294967294:
// the kernel's uid_t and gid_t are 32 bits, and 4294967295 is (uid_t)-1,
// which setuid and chown read as "leave unchanged". Anything larger would
// wrap when converted, so that 4294967296 became 0, root.
package posixid

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Max is the largest user or group id almanac accepts.
const Max = 1<<32 - 2

// Rule says what a numeric id may be, for messages.
const Rule = "a decimal from 0 to 4294967294"

// nameRE is the form of a user or group name in run_as: the characters
// useradd and systemd's User= accept, at most 32 of them.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$`)

// Numeric reports whether s is all ASCII digits (and not empty), the form
// a user or group id takes in place of a name.
func Numeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Parse reads a numeric user or group id, refusing a sign, spaces and any
// value outside 0–Max.
func Parse(s string) (uint32, error) {
	if !Numeric(s) {
		return 0, fmt.Errorf("%q is not a numeric id (%s)", s, Rule)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > Max {
		return 0, fmt.Errorf("id %s is out of range (%s)", s, Rule)
	}
	return uint32(n), nil
}

// CheckInt is Parse for an id already read as a number.
func CheckInt(n int64) error {
	if n < 0 || n > Max {
		return fmt.Errorf("id %d is out of range (%s)", n, Rule)
	}
	return nil
}

// CheckName checks one user or group, a name or a numeric id; what says
// which ("user", "group") for the message.
func CheckName(what, s string) error {
	if Numeric(s) || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") && Numeric(s[1:]) {
		if _, err := Parse(s); err != nil {
			return fmt.Errorf("%s %w", what, err)
		}
		return nil
	}
	if !nameRE.MatchString(s) {
		return fmt.Errorf("%s %q is not a name (letters, digits, '_', '.' or '-', at most 32) or a numeric id (%s)", what, s, Rule)
	}
	return nil
}

// CheckRunAs checks run_as: USER or USER:GROUP, each a name or a numeric
// id.
func CheckRunAs(s string) error {
	u, g, hasGroup := strings.Cut(s, ":")
	if err := CheckName("user", u); err != nil {
		return err
	}
	if hasGroup {
		return CheckName("group", g)
	}
	return nil
}
