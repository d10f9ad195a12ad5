package catalog

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Evaluation-time values are string, int64, float64, bool, nil (undef),
// []any, *hashV, refV, typeV, *regexp.Regexp, defaultV and *collector.

// hashV is an insertion-ordered hash, as Puppet's hashes are.
type hashV struct {
	keys []any
	m    map[any]any
}

func newHash() *hashV { return &hashV{m: map[any]any{}} }

func (h *hashV) set(k, v any) {
	if _, ok := h.m[k]; !ok {
		h.keys = append(h.keys, k)
	}
	h.m[k] = v
}

// refV is a reference to a resource: Type is capitalized (Exec, Class,
// Foo::Bar) and Title as declared (class titles lower-case).
type refV struct {
	Type, Title string
}

func (r refV) String() string { return formatRef(r.Type, r.Title) }

// typeV is a bare type name such as Exec or String.
type typeV struct{ Name string }

// defaultV is the value of the default keyword.
type defaultV struct{}

// capitalize upper-cases the first letter of each ::-separated segment.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	if !strings.Contains(s, "::") {
		if s[0] >= 'A' && s[0] <= 'Z' {
			return s
		}
		if s[0] >= 'a' && s[0] <= 'z' {
			return string(s[0]-'a'+'A') + s[1:]
		}
	}
	parts := strings.Split(s, "::")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "::")
}

// formatRef renders Type[title] the way Puppet prints references: the type
// capitalized and, for classes, the title capitalized too.
func formatRef(typ, title string) string {
	typ = typeRefName(typ)
	if typ == "Class" {
		title = capitalize(strings.ToLower(title))
	}
	return typ + "[" + title + "]"
}

// typeRefNames caches capitalized type names. It outlives every compile, so
// it holds copies of its keys (a type name is a substring of a manifest's
// text, which would otherwise stay in memory for as long as the process
// runs) and at most maxTypeRefNames of them, however many defined types
// the manifests of a long-running daemon name over time.
var (
	typeRefNames    sync.Map
	typeRefNamesLen atomic.Int32
)

// maxTypeRefNames bounds typeRefNames: the built-in types and the defined
// types of any real code base fit many times over.
const maxTypeRefNames = 1024

// typeRefName returns the capitalized form of a type name (exec -> Exec,
// foo::bar -> Foo::Bar).
func typeRefName(typ string) string {
	if v, ok := typeRefNames.Load(typ); ok {
		return v.(string)
	}
	name := capitalize(strings.ToLower(typ))
	if typeRefNamesLen.Add(1) <= maxTypeRefNames {
		typeRefNames.Store(strings.Clone(typ), strings.Clone(name))
	}
	return name
}

// rkey is the lookup key for a resource: lower-case type plus title
// (lower-case for classes).
type rkey struct{ typ, title string }

func refKey(typ, title string) rkey {
	typ = strings.ToLower(typ)
	if typ == "class" {
		title = strings.ToLower(strings.TrimPrefix(title, "::"))
	}
	return rkey{typ, title}
}

// parseRefString parses "Type[title]".
func parseRefString(s string) (refV, bool) {
	i := strings.IndexByte(s, '[')
	if i <= 0 || !strings.HasSuffix(s, "]") {
		return refV{}, false
	}
	typ := s[:i]
	if typ[0] < 'A' || typ[0] > 'Z' {
		return refV{}, false
	}
	title := s[i+1 : len(s)-1]
	title = strings.Trim(title, `'"`)
	return refV{Type: typ, Title: title}, true
}

// typeName names a value's type for messages, as Puppet does.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "Undef"
	case string:
		return "String"
	case int64:
		return "Integer"
	case float64:
		return "Float"
	case bool:
		return "Boolean"
	case []any:
		return "Array"
	case *hashV:
		return "Hash"
	case refV:
		return v.String()
	case typeV:
		return "Type"
	case *regexp.Regexp:
		return "Regexp"
	case defaultV:
		return "Default"
	case *collector:
		return "Collector"
	}
	return fmt.Sprintf("%T", v)
}

// truthy is Puppet's truth: only undef and false are false.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	}
	return true
}

// toString renders a value as string interpolation does.
func toString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return formatFloat(v)
	case bool:
		return strconv.FormatBool(v)
	case refV:
		return v.String()
	case typeV:
		return v.Name
	case *regexp.Regexp:
		return "/" + v.String() + "/"
	case defaultV:
		return "default"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = quoted(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *hashV:
		parts := make([]string, len(v.keys))
		for i, k := range v.keys {
			parts[i] = quoted(k) + " => " + quoted(v.m[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func quoted(v any) string {
	if s, ok := v.(string); ok {
		return "'" + s + "'"
	}
	if v == nil {
		return "undef"
	}
	return toString(v)
}

func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// equal is Puppet's ==: strings case-insensitively, numbers numerically,
// arrays and hashes deeply.
func equal(a, b any) bool {
	switch a := a.(type) {
	case string:
		if b, ok := b.(string); ok {
			return strings.EqualFold(a, b)
		}
		return false
	case int64, float64:
		x, ok1 := toFloat(a)
		y, ok2 := toFloat(b)
		return ok1 && ok2 && x == y
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case *hashV:
		b, ok := b.(*hashV)
		if !ok || len(a.keys) != len(b.keys) {
			return false
		}
		for _, k := range a.keys {
			bv, ok := b.m[k]
			if !ok || !equal(a.m[k], bv) {
				return false
			}
		}
		return true
	case refV:
		b, ok := b.(refV)
		return ok && refKey(a.Type, a.Title) == refKey(b.Type, b.Title)
	case *regexp.Regexp:
		b, ok := b.(*regexp.Regexp)
		return ok && a.String() == b.String()
	}
	return a == b
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// hashKey checks that v can be a hash key.
func hashKey(v any) (any, bool) {
	switch v.(type) {
	case string, int64, float64, bool, nil:
		return v, true
	case refV, defaultV:
		// default is a key as in Puppet: { default => 'anytime' }.
		return v, true
	}
	return nil, false
}

// export converts an evaluation value to the catalog's parameter value types:
// string, int64, float64, bool, nil, []any and map[string]any.
func export(v any) (any, error) {
	in := v
	switch v := v.(type) {
	case nil, string, int64, bool:
		return v, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("value %v is not a finite number", v)
		}
		return in, nil
	case refV:
		return v.String(), nil
	case typeV:
		return v.Name, nil
	case *regexp.Regexp:
		return v.String(), nil
	case []any:
		// Arrays are copied only when an element changes: values are
		// never modified once evaluated, so an exported array may be
		// the evaluated one, shared.
		var out []any
		for i, e := range v {
			x, err := export(e)
			if err != nil {
				return nil, err
			}
			if out == nil && !exportedAsIs(e, x) {
				out = make([]any, len(v))
				copy(out, v[:i])
			}
			if out != nil {
				out[i] = x
			}
		}
		switch {
		case out != nil:
			return out, nil
		case v == nil:
			return []any{}, nil // as a copy would be
		}
		return in, nil // v again would be a new interface value
	case *hashV:
		out := make(map[string]any, len(v.keys))
		for _, k := range v.keys {
			x, err := export(v.m[k])
			if err != nil {
				return nil, err
			}
			out[toString(k)] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %s value cannot be a resource attribute", typeName(v))
}

// exportedAsIs reports whether x, the export of v, is v itself.
func exportedAsIs(v, x any) bool {
	switch v := v.(type) {
	case nil, string, int64, bool, float64:
		return true
	case []any:
		xs, ok := x.([]any)
		return ok && len(xs) == len(v) && (len(v) == 0 || &xs[0] == &v[0])
	}
	return false
}

// flatten flattens nested arrays.
func flatten(v any, out []any) []any {
	if a, ok := v.([]any); ok {
		for _, e := range a {
			out = flatten(e, out)
		}
		return out
	}
	return append(out, v)
}
