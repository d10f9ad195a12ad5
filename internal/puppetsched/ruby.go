package puppetsched

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reproduces the few pieces of Ruby behaviour that leak into
// Puppet's schedule messages and parsing: how a value prints (to_s and
// inspect), String#to_i, Kernel#Integer, and line-anchored regular
// expressions. Manifest values arrive as Go values (string, int64, float64,
// bool, nil, []any, map[string]any); they print the way Puppet's Ruby would
// print the corresponding Ruby objects.

// rubyToS formats v as Ruby's to_s would.
func rubyToS(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return rubyInspect(v)
}

// rubyInspect formats v as Ruby's inspect would (Ruby 3.1, as shipped with
// Puppet 7). Hash keys are printed sorted, since Go maps have no order.
func rubyInspect(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return inspectString(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return rubyFloat(x)
	case float32:
		return rubyFloat(float64(x))
	case []any:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(rubyInspect(e))
		}
		b.WriteByte(']')
		return b.String()
	case []string:
		a := make([]any, len(x))
		for i, s := range x {
			a[i] = s
		}
		return rubyInspect(a)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(inspectString(k))
			b.WriteString("=>")
			b.WriteString(rubyInspect(x[k]))
		}
		b.WriteByte('}')
		return b.String()
	}
	if n, ok := asInt(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprint(v)
}

// asInt reports whether v is a Go integer (a Ruby Integer) and its value.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
		return math.MaxInt64, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
		return math.MaxInt64, true
	}
	return 0, false
}

// inspectString quotes s as Ruby's String#inspect does for UTF-8 strings.
func inspectString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, "\\x%02X", s[i])
			i++
			continue
		}
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		case '\b':
			b.WriteString(`\b`)
		case '\a':
			b.WriteString(`\a`)
		case 0x1b:
			b.WriteString(`\e`)
		case '#':
			if i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '$' || s[i+1] == '@') {
				b.WriteString(`\#`)
			} else {
				b.WriteByte('#')
			}
		default:
			switch {
			case unicode.In(r, unicode.Cc, unicode.Zl, unicode.Zp):
				fmt.Fprintf(&b, "\\u%04X", r)
			default:
				b.WriteRune(r)
			}
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// rubyFloat formats f as Ruby's Float#to_s.
func rubyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX, shortest
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp >= -4 && exp < 15 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return fmt.Sprintf("%se%s%02d", mant, sign, exp)
}

// bigint is an integer as Ruby would hold it: exact when it fits in an
// int64, otherwise saturated, with its decimal spelling kept for messages.
type bigint struct {
	v   int64  // saturated at math.MaxInt64
	big bool   // the true value exceeds math.MaxInt64
	dec string // canonical decimal spelling of the true value
}

func (n bigint) String() string { return n.dec }

func isRubySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// rubyToI is Ruby's String#to_i: leading whitespace, an optional sign, then
// decimal digits with single underscores between them; 0 when there is none.
func rubyToI(s string) bigint {
	i := 0
	for i < len(s) && isRubySpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits []byte
	for i < len(s) {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits = append(digits, c)
			i++
			continue
		}
		if c == '_' && len(digits) > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	return makeInt(digits, 10, neg)
}

// rubyInteger is Kernel#Integer applied to a String: surrounding whitespace,
// an optional sign, a 0x/0b/0o/0d prefix or a leading 0 for octal, digits
// with single underscores between them, and nothing else.
func rubyInteger(s string) (bigint, bool) {
	i, j := 0, len(s)
	for i < j && isRubySpace(s[i]) {
		i++
	}
	for j > i && isRubySpace(s[j-1]) {
		j--
	}
	s = s[i:j]
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := 10
	if len(s) > 1 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base, s = 16, s[2:]
		case 'b', 'B':
			base, s = 2, s[2:]
		case 'o', 'O':
			base, s = 8, s[2:]
		case 'd', 'D':
			base, s = 10, s[2:]
		case '_':
			base, s = 8, s[2:]
		default:
			base, s = 8, s[1:]
		}
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' {
		return bigint{}, false
	}
	digits := make([]byte, 0, len(s))
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c == '_' {
			if s[k-1] == '_' {
				return bigint{}, false
			}
			continue
		}
		d := digitVal(c)
		if d < 0 || d >= base {
			return bigint{}, false
		}
		digits = append(digits, c)
	}
	return makeInt(digits, base, neg), true
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// makeInt converts digits in base to a bigint. Values whose magnitude exceeds
// int64 saturate; the decimal spelling is exact for base 10 and approximate
// (the saturated value) otherwise, which only ever shows in messages.
func makeInt(digits []byte, base int, neg bool) bigint {
	var v uint64
	over := false
	for _, c := range digits {
		d := uint64(digitVal(c))
		if v > (math.MaxUint64-d)/uint64(base) {
			over = true
			break
		}
		v = v*uint64(base) + d
	}
	if !over && v > math.MaxInt64 {
		over = true
	}
	if !over {
		n := int64(v)
		if neg {
			n = -n
		}
		return bigint{v: n, dec: strconv.FormatInt(n, 10)}
	}
	dec := strconv.FormatInt(math.MaxInt64, 10)
	if base == 10 {
		dec = strings.TrimLeft(string(digits), "0")
	}
	n := int64(math.MaxInt64)
	if neg {
		n, dec = math.MinInt64, "-"+dec
	}
	return bigint{v: n, big: true, dec: dec}
}

// anyLine reports whether some line of s (Ruby's ^ and $ anchor at line
// breaks) satisfies ok.
func anyLine(s string, ok func(string) bool) bool {
	for {
		line, rest, found := strings.Cut(s, "\n")
		if ok(line) {
			return true
		}
		if !found {
			return false
		}
		s = rest
	}
}

// dropTrailingEmpty removes trailing empty fields from the result of a
// split, as Ruby's String#split does.
func dropTrailingEmpty(fields []string) []string {
	for len(fields) > 0 && fields[len(fields)-1] == "" {
		fields = fields[:len(fields)-1]
	}
	return fields
}
