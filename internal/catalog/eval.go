package catalog

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// evalBlock evaluates statements in order and returns the last value. A
// statement that fails is abandoned and evaluation goes on with the next,
// so one run reports as many independent errors as possible.
func (c *compiler) evalBlock(s *scope, body []manifest.Expr) any {
	var last any
	for _, e := range body {
		switch e.(type) {
		case *manifest.ClassDef, *manifest.DefineDef, *manifest.NodeDef:
			continue // hoisted
		}
		last = c.evalStatement(s, e)
	}
	return last
}

// evalStatement evaluates one statement of a block; one that fails (its
// error already recorded) yields nil, and the block goes on.
func (c *compiler) evalStatement(s *scope, e manifest.Expr) (v any) {
	c.safely(func() { v = c.eval(s, e) })
	return v
}

// deeper enters one more level of evaluation for e, failing at e beyond
// maxEvalDepth; the caller decrements c.depth when it returns.
func (c *compiler) deeper(e manifest.Expr) {
	c.depth++
	if c.depth > maxEvalDepth {
		c.fail(e.Position(), "expression nested too deeply (more than %d levels)", maxEvalDepth)
	}
}

// eval evaluates an expression. Its depth is bounded: a tree made deep by
// a long chain of operators (1+1+...), accesses or nested statements would
// otherwise exhaust the goroutine's stack, which Go cannot recover from.
func (c *compiler) eval(s *scope, e manifest.Expr) any {
	c.deeper(e)
	v := c.evalNode(s, e)
	c.depth--
	return v
}

// eval evaluates one expression.
func (c *compiler) evalNode(s *scope, e manifest.Expr) any {
	switch n := e.(type) {
	case *manifest.StringLit:
		return n.Value
	case *manifest.Interp:
		var b strings.Builder
		for _, p := range n.Parts {
			b.WriteString(toString(c.eval(s, p)))
		}
		return b.String()
	case *manifest.NumberLit:
		if n.IsFloat {
			return n.Float
		}
		return n.Int
	case *manifest.BoolLit:
		return n.Value
	case *manifest.UndefLit:
		return nil
	case *manifest.DefaultLit:
		return defaultV{}
	case *manifest.RegexLit:
		if n.Re == nil {
			c.fail(n.Position(), "invalid regular expression /%s/", n.Source)
		}
		return n.Re
	case *manifest.NameLit:
		return n.Name
	case *manifest.TypeName:
		return typeV{Name: n.Name}
	case *manifest.ArrayLit:
		out := make([]any, 0, len(n.Elems))
		for _, el := range n.Elems {
			out = append(out, c.eval(s, el))
		}
		return out
	case *manifest.HashLit:
		h := newHash()
		for _, en := range n.Entries {
			k, ok := hashKey(c.eval(s, en.Key))
			if !ok {
				c.fail(en.Key.Position(), "a hash key must be a String, Number or Boolean")
			}
			h.set(k, c.eval(s, en.Value))
		}
		return h
	case *manifest.Var:
		return c.lookupVar(s, n.Name, n.Position())
	case *manifest.Access:
		return c.access(s, n)
	case *manifest.Paren:
		return c.eval(s, n.X)
	case *manifest.Unary:
		x := c.eval(s, n.X)
		if n.Op == "!" {
			return !truthy(x)
		}
		switch x := x.(type) {
		case int64:
			return -x
		case float64:
			return -x
		}
		c.fail(n.Position(), "The operator '-' is not applicable to %s", typeName(x))
	case *manifest.Binary:
		return c.binary(s, n)
	case *manifest.Selector:
		return c.selector(s, n)
	case *manifest.Assign:
		v := c.eval(s, n.Value)
		if _, exists := s.vars[n.Name]; exists {
			c.fail(n.Position(), "Cannot reassign variable '$%s'", n.Name)
		}
		s.vars[n.Name] = v
		return v
	case *manifest.If:
		if truthy(c.eval(s, n.Cond)) {
			return c.evalBlock(s, n.Then)
		}
		return c.evalBlock(s, n.Else)
	case *manifest.Unless:
		if !truthy(c.eval(s, n.Cond)) {
			return c.evalBlock(s, n.Then)
		}
		return c.evalBlock(s, n.Else)
	case *manifest.Case:
		return c.caseExpr(s, n)
	case *manifest.ResourceDecl:
		return c.declare(s, n)
	case *manifest.ResourceDefaults:
		c.setDefaults(s, n)
		return nil
	case *manifest.Call:
		return c.call(s, n)
	case *manifest.Collector:
		return c.newCollector(s, n)
	case *manifest.Chain:
		return c.chain(s, n)
	case *manifest.ClassDef, *manifest.DefineDef:
		return nil
	}
	c.fail(e.Position(), "unsupported expression")
	return nil
}

func (c *compiler) lookupVar(s *scope, name string, pos manifest.Pos) any {
	if name != "" && name[0] >= '0' && name[0] <= '9' {
		i, _ := strconv.Atoi(name)
		for sc := s; sc != nil; sc = sc.parent {
			if sc.matches != nil {
				if i < len(sc.matches) {
					return sc.matches[i]
				}
				return nil
			}
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(name, "::"); ok {
		if v, ok := c.top.vars[rest]; ok {
			return v
		}
		c.fail(pos, "Unknown variable: '%s'.", name)
	}
	if i := strings.LastIndex(name, "::"); i > 0 {
		cs := c.classSc[strings.ToLower(name[:i])]
		if cs != nil {
			if v, ok := cs.vars[name[i+2:]]; ok {
				return v
			}
		}
		c.fail(pos, "Unknown variable: '%s'.", name)
	}
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[name]; ok {
			return v
		}
	}
	c.fail(pos, "Unknown variable: '%s'.", name)
	return nil
}

// access evaluates x[k...]: array index, hash lookup, or a resource
// reference Type['title', ...].
func (c *compiler) access(s *scope, n *manifest.Access) any {
	target := c.eval(s, n.Target)
	keys := make([]any, len(n.Keys))
	for i, k := range n.Keys {
		keys[i] = c.eval(s, k)
	}
	switch t := target.(type) {
	case typeV:
		refs := make([]any, 0, len(keys))
		for i, k := range flatten(keys, nil) {
			title, ok := k.(string)
			if !ok || title == "" {
				c.fail(n.Keys[min(i, len(n.Keys)-1)].Position(), "%s[] expects a non-empty String title, got %s", t.Name, typeName(k))
			}
			typ := t.Name
			if strings.EqualFold(typ, "class") {
				typ = "Class"
				title = strings.ToLower(strings.TrimPrefix(title, "::"))
			} else if strings.EqualFold(typ, "resource") {
				c.fail(n.Position(), "unsupported: Resource[...] references")
			}
			refs = append(refs, refV{Type: typeRefName(typ), Title: title})
		}
		if len(refs) == 1 {
			return refs[0]
		}
		return refs
	case []any:
		if len(keys) != 1 {
			c.fail(n.Position(), "unsupported: array slices")
		}
		i, ok := keys[0].(int64)
		if !ok {
			c.fail(n.Keys[0].Position(), "an Array index must be an Integer, got %s", typeName(keys[0]))
		}
		if i < 0 {
			i += int64(len(t))
		}
		if i < 0 || i >= int64(len(t)) {
			return nil
		}
		return t[i]
	case *hashV:
		if len(keys) != 1 {
			c.fail(n.Position(), "unsupported: multiple hash keys in one access")
		}
		k, ok := hashKey(keys[0])
		if !ok {
			return nil
		}
		return t.m[k]
	case nil:
		c.fail(n.Position(), "Operator '[]' is not applicable to an Undef Value.")
	}
	c.fail(n.Position(), "Operator '[]' is not applicable to a %s value", typeName(target))
	return nil
}

func (c *compiler) binary(s *scope, n *manifest.Binary) any {
	switch n.Op {
	case "and":
		return truthy(c.eval(s, n.L)) && truthy(c.eval(s, n.R))
	case "or":
		return truthy(c.eval(s, n.L)) || truthy(c.eval(s, n.R))
	}
	l, r := c.eval(s, n.L), c.eval(s, n.R)
	switch n.Op {
	case "==":
		return equal(l, r)
	case "!=":
		return !equal(l, r)
	case "=~", "!~":
		ok := c.match(s, n, l, r)
		if n.Op == "!~" {
			return !ok
		}
		return ok
	case "in":
		return c.in(n, l, r)
	case "<", "<=", ">", ">=":
		cmp, ok := compare(l, r)
		if !ok {
			c.fail(n.Position(), "Comparison of: %s %s %s, is not possible", typeName(l), n.Op, typeName(r))
		}
		switch n.Op {
		case "<":
			return cmp < 0
		case "<=":
			return cmp <= 0
		case ">":
			return cmp > 0
		}
		return cmp >= 0
	}
	return c.arith(n, l, r)
}

func compare(l, r any) (int, bool) {
	if a, ok := toFloat(l); ok {
		b, ok := toFloat(r)
		if !ok {
			return 0, false
		}
		switch {
		case a < b:
			return -1, true
		case a > b:
			return 1, true
		}
		return 0, true
	}
	a, ok1 := l.(string)
	b, ok2 := r.(string)
	if !ok1 || !ok2 {
		return 0, false
	}
	return strings.Compare(strings.ToLower(a), strings.ToLower(b)), true
}

func (c *compiler) match(s *scope, n *manifest.Binary, l, r any) bool {
	str, ok := l.(string)
	if !ok {
		c.fail(n.Position(), "Left operand of %s must be a String, got %s", n.Op, typeName(l))
	}
	var re *regexp.Regexp
	switch r := r.(type) {
	case *regexp.Regexp:
		re = r
	case string:
		var err error
		if re, err = regexp.Compile(r); err != nil {
			c.fail(n.R.Position(), "invalid regular expression %q: %v", r, err)
		}
	default:
		c.fail(n.Position(), "Right operand of %s must be a Regexp or String, got %s", n.Op, typeName(r))
	}
	m := re.FindStringSubmatch(str)
	if m == nil {
		return false
	}
	s.matches = m
	return true
}

func (c *compiler) in(n *manifest.Binary, l, r any) bool {
	switch r := r.(type) {
	case string:
		switch l := l.(type) {
		case string:
			return strings.Contains(strings.ToLower(r), strings.ToLower(l))
		case *regexp.Regexp:
			return l.MatchString(r)
		}
		return false
	case []any:
		for _, e := range r {
			if re, ok := l.(*regexp.Regexp); ok {
				if s, ok := e.(string); ok && re.MatchString(s) {
					return true
				}
				continue
			}
			if equal(l, e) {
				return true
			}
		}
		return false
	case *hashV:
		for _, k := range r.keys {
			if equal(l, k) {
				return true
			}
		}
		return false
	}
	c.fail(n.Position(), "The 'in' operator is not applicable to a %s on the right", typeName(r))
	return false
}

func (c *compiler) arith(n *manifest.Binary, l, r any) any {
	switch n.Op {
	case "+":
		switch lv := l.(type) {
		case []any:
			out := append([]any(nil), lv...)
			if ra, ok := r.([]any); ok {
				return append(out, ra...)
			}
			return append(out, r)
		case *hashV:
			rh, ok := r.(*hashV)
			if !ok {
				c.fail(n.Position(), "Operator '+' cannot merge a %s into a Hash", typeName(r))
			}
			out := newHash()
			for _, k := range lv.keys {
				out.set(k, lv.m[k])
			}
			for _, k := range rh.keys {
				out.set(k, rh.m[k])
			}
			return out
		}
	case "-":
		switch lv := l.(type) {
		case []any:
			rm := flatten([]any{r}, nil)
			var out []any
			for _, e := range lv {
				keep := true
				for _, x := range rm {
					if equal(e, x) {
						keep = false
						break
					}
				}
				if keep {
					out = append(out, e)
				}
			}
			return out
		case *hashV:
			out := newHash()
			rm := flatten([]any{r}, nil)
			for _, k := range lv.keys {
				drop := false
				for _, x := range rm {
					if equal(k, x) {
						drop = true
					}
				}
				if !drop {
					out.set(k, lv.m[k])
				}
			}
			return out
		}
	}
	li, lInt := l.(int64)
	ri, rInt := r.(int64)
	if lInt && rInt {
		switch n.Op {
		case "+":
			return li + ri
		case "-":
			return li - ri
		case "*":
			return li * ri
		case "/", "%":
			if ri == 0 {
				c.fail(n.Position(), "Division by 0")
			}
			if li == math.MinInt64 && ri == -1 {
				c.fail(n.Position(), "integer overflow")
			}
			if n.Op == "/" {
				return li / ri
			}
			return li % ri
		}
	}
	lf, ok1 := toFloat(l)
	rf, ok2 := toFloat(r)
	if ok1 && ok2 {
		switch n.Op {
		case "+":
			return lf + rf
		case "-":
			return lf - rf
		case "*":
			return lf * rf
		case "/":
			if rf == 0 {
				c.fail(n.Position(), "Division by 0")
			}
			return lf / rf
		case "%":
			c.fail(n.Position(), "Operator '%%' is not applicable to a Float")
		}
	}
	c.fail(n.Position(), "Operator '%s' is not applicable to %s and %s", n.Op, typeName(l), typeName(r))
	return nil
}

// matches tests a case option or selector key against the subject.
func (c *compiler) matches(s *scope, subject, option any) bool {
	switch o := option.(type) {
	case defaultV:
		return true
	case *regexp.Regexp:
		str, ok := subject.(string)
		if !ok {
			return false
		}
		m := o.FindStringSubmatch(str)
		if m == nil {
			return false
		}
		s.matches = m
		return true
	case []any:
		if _, subjArray := subject.([]any); !subjArray {
			for _, e := range o {
				if c.matches(s, subject, e) {
					return true
				}
			}
			return false
		}
	}
	return equal(subject, option)
}

func (c *compiler) selector(s *scope, n *manifest.Selector) any {
	subject := c.eval(s, n.Subject)
	var dflt manifest.Expr
	for _, cs := range n.Cases {
		opt := c.eval(s, cs.Match)
		if _, isDefault := opt.(defaultV); isDefault {
			dflt = cs.Value
			continue
		}
		if c.matches(s, subject, opt) {
			return c.eval(s, cs.Value)
		}
	}
	if dflt != nil {
		return c.eval(s, dflt)
	}
	c.fail(n.Position(), "No matching entry for selector parameter with value '%s'", toString(subject))
	return nil
}

func (c *compiler) caseExpr(s *scope, n *manifest.Case) any {
	subject := c.eval(s, n.Subject)
	var dflt *manifest.CaseOption
	for i := range n.Options {
		o := &n.Options[i]
		for _, ve := range o.Values {
			v := c.eval(s, ve)
			if _, isDefault := v.(defaultV); isDefault {
				dflt = o
				continue
			}
			if c.matches(s, subject, v) {
				return c.evalBlock(s, o.Body)
			}
		}
	}
	if dflt != nil {
		return c.evalBlock(s, dflt.Body)
	}
	return nil
}
