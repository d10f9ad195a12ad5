package catalog

import (
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// call evaluates a function call.
func (c *compiler) call(s *scope, n *manifest.Call) any {
	switch n.Name {
	case "each", "map", "filter":
		return c.iterate(s, n)
	}
	if n.Lambda != nil {
		c.fail(n.Lambda.Position(), "%s() does not take a lambda", n.Name)
	}
	args := make([]any, len(n.Args))
	for i, a := range n.Args {
		args[i] = c.eval(s, a)
	}
	switch n.Name {
	case "include", "require", "contain":
		var refs []any
		at := c.files.of(n)
		for _, name := range c.classNames(n, args) {
			cls := c.includeClass(s, name, at)
			cont := s.container
			switch n.Name {
			case "require":
				c.extra = append(c.extra, edge{from: cls, to: cont, kind: ekBefore, via: viaOf("require function"), pos: at})
			case "contain":
				if r := c.rec(cls); r.cont == c.stage {
					r.cont = cont
				} else if r.cont != cont {
					c.extra = append(c.extra, edge{from: cont, to: cls, kind: ekContain, via: viaOf("contain"), pos: at})
				}
			}
			refs = append(refs, refV{Type: "Class", Title: c.rec(cls).title})
		}
		return refs
	case "realize":
		for i, a := range flatten(args, nil) {
			ref, ok := a.(refV)
			if !ok {
				c.fail(n.Args[min(i, len(n.Args)-1)].Position(), "realize() expects resource references, got %s", typeName(a))
			}
			c.realizes = append(c.realizes, realizeReq{ref: ref, pos: c.files.of(n)})
		}
		return nil
	case "fail":
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = toString(a)
		}
		c.fail(n.Position(), "%s", strings.Join(parts, " "))
	}
	c.fail(n.Position(), "unsupported: function '%s'", n.Name)
	return nil
}

// classNames turns include/require/contain arguments into class names.
func (c *compiler) classNames(n *manifest.Call, args []any) []string {
	var out []string
	for _, a := range flatten(args, nil) {
		switch v := a.(type) {
		case string:
			if v == "" {
				c.fail(n.Position(), "%s(): a class name cannot be empty", n.Name)
			}
			out = append(out, v)
		case refV:
			if v.Type != "Class" {
				c.fail(n.Position(), "%s(): expects class names or Class references, got %s", n.Name, v)
			}
			out = append(out, v.Title)
		default:
			c.fail(n.Position(), "%s(): expects class names or Class references, got %s", n.Name, typeName(a))
		}
	}
	return out
}

// iterate implements each, map and filter.
func (c *compiler) iterate(s *scope, n *manifest.Call) any {
	if n.Lambda == nil {
		c.fail(n.Position(), "%s() requires a lambda block", n.Name)
	}
	if len(n.Args) != 1 {
		c.fail(n.Position(), "%s() expects 1 argument, got %d", n.Name, len(n.Args))
	}
	coll := c.eval(s, n.Args[0])
	np := len(n.Lambda.Params)
	if np < 1 || np > 2 {
		c.fail(n.Lambda.Position(), "%s() expects a lambda with 1 or 2 parameters, got %d", n.Name, np)
	}
	run := func(args ...any) any {
		sc := newScope(s, s, s.container)
		sc.tags = s.tags
		for i, p := range n.Lambda.Params {
			if p.Type != nil {
				if msg := c.checkType(s, p.Type, args[i]); msg != "" {
					c.fail(p.Position(), "%s(): block parameter '%s' expects %s, got %s", n.Name, p.Name, msg, typeName(args[i]))
				}
			}
			sc.vars[p.Name] = args[i]
		}
		return c.evalBlock(sc, n.Lambda.Body)
	}
	switch v := coll.(type) {
	case []any:
		var out []any
		for i, e := range v {
			var r any
			if np == 1 {
				r = run(e)
			} else {
				r = run(int64(i), e)
			}
			switch n.Name {
			case "map":
				out = append(out, r)
			case "filter":
				if truthy(r) {
					out = append(out, e)
				}
			}
		}
		if n.Name == "each" {
			return v
		}
		if out == nil {
			out = []any{}
		}
		return out
	case *hashV:
		var out []any
		fh := newHash()
		for _, k := range v.keys {
			var r any
			if np == 1 {
				r = run([]any{k, v.m[k]})
			} else {
				r = run(k, v.m[k])
			}
			switch n.Name {
			case "map":
				out = append(out, r)
			case "filter":
				if truthy(r) {
					fh.set(k, v.m[k])
				}
			}
		}
		switch n.Name {
		case "each":
			return v
		case "filter":
			return fh
		}
		if out == nil {
			out = []any{}
		}
		return out
	case int64:
		if v > maxIterations {
			c.fail(n.Args[0].Position(), "%s() over %d iterations: more than the limit of %d", n.Name, v, maxIterations)
		}
		var out []any
		for i := int64(0); i < v; i++ {
			var r any
			if np == 1 {
				r = run(i)
			} else {
				r = run(i, i)
			}
			if n.Name == "map" {
				out = append(out, r)
			} else if n.Name == "filter" && truthy(r) {
				out = append(out, i)
			}
		}
		if n.Name == "each" {
			return v
		}
		return out
	}
	c.fail(n.Args[0].Position(), "%s() expects an Array, Hash or Integer, got %s", n.Name, typeName(coll))
	return nil
}
