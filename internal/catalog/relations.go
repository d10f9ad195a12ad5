package catalog

import (
	"slices"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// collector is a Type <| query |> expression. Queries are evaluated when
// the collector is, and resolved after all declarations.
type collector struct {
	typ     string
	query   *query
	matched []int32
}

// query is a compiled collector search expression.
type query struct {
	op   string // "==", "!=", "and", "or"
	attr string
	val  any
	l, r *query
}

func (c *compiler) newCollector(s *scope, n *manifest.Collector) any {
	typ := strings.ToLower(n.Type)
	if _, ok := builtinTypes[typ]; !ok && c.defines[typ] == nil && typ != "class" {
		c.fail(n.Position(), "Unknown resource type: '%s'", typ)
	}
	if typ == "class" {
		c.fail(n.Position(), "Classes cannot be collected")
	}
	col := &collector{typ: typ}
	if n.Query != nil {
		col.query = c.compileQuery(s, n.Query)
	}
	c.colls = append(c.colls, col)
	return col
}

func (c *compiler) compileQuery(s *scope, e manifest.Expr) *query {
	c.deeper(e)
	q := c.compileQueryNode(s, e)
	c.depth--
	return q
}

func (c *compiler) compileQueryNode(s *scope, e manifest.Expr) *query {
	switch n := e.(type) {
	case *manifest.Paren:
		return c.compileQuery(s, n.X)
	case *manifest.Binary:
		switch n.Op {
		case "and", "or":
			return &query{op: n.Op, l: c.compileQuery(s, n.L), r: c.compileQuery(s, n.R)}
		case "==", "!=":
			attr := n.L.(*manifest.NameLit).Name
			return &query{op: n.Op, attr: attr, val: c.eval(s, n.R)}
		}
	}
	c.fail(e.Position(), "unsupported collector query")
	return nil
}

// match tests record r against a query: its attributes, including those
// a resource default fills in (as Puppet, which applies defaults when it
// creates the resource), plus title and tag.
func (q *query) match(c *compiler, r int32) bool {
	if q == nil {
		return true
	}
	switch q.op {
	case "and":
		return q.l.match(c, r) && q.r.match(c, r)
	case "or":
		return q.l.match(c, r) || q.r.match(c, r)
	}
	var eq bool
	switch q.attr {
	case "title":
		eq = equal(c.rec(r).title, q.val)
	case "tag":
		want, ok := q.val.(string)
		eq = ok && hasTag(c.rec(r), c.types.names, c.tagLists, want)
	default:
		v, set := c.get(r, q.attr)
		if !set {
			v, set = c.defaultValue(r, q.attr)
		}
		if !set {
			eq = q.val == nil
			break
		}
		if arr, ok := v.([]any); ok {
			for _, e := range arr {
				if equal(e, q.val) {
					eq = true
					break
				}
			}
			if !eq {
				eq = equal(v, q.val)
			}
		} else {
			eq = equal(v, q.val)
		}
	}
	if q.op == "!=" {
		return !eq
	}
	return eq
}

// ofType returns the records of type typ (lower case).
func (c *compiler) ofType(typ string) []int32 {
	if t, ok := c.types.lookup(typ); ok && int(t) < len(c.byType) {
		return c.byType[t]
	}
	return nil
}

// settle evaluates pending defined-type instances and resolves collectors
// and realize() calls until nothing changes: a realized virtual defined
// resource may declare more resources, which later collectors may match.
func (c *compiler) settle() {
	doneRealize := 0
	for {
		progress := false
		for len(c.pending) > 0 {
			r := c.pending[0]
			c.pending = c.pending[1:]
			if !c.rec(r).is(fDone) {
				c.safely(func() { c.evalDefine(r) })
				progress = true
			}
		}
		for _, col := range c.colls {
			for _, r := range c.ofType(col.typ) {
				if c.rec(r).is(fVirtual) && col.query.match(c, r) {
					c.realize(r)
					progress = true
				}
			}
		}
		for ; doneRealize < len(c.realizes); doneRealize++ {
			rq := c.realizes[doneRealize]
			r := c.find(rq.ref)
			if r < 0 {
				c.errorf(c.pos(rq.pos), "Failed to realize virtual resources %s", rq.ref)
				continue
			}
			if c.rec(r).is(fVirtual) {
				c.realize(r)
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	for _, col := range c.colls {
		col.matched = col.matched[:0]
		for _, r := range c.ofType(col.typ) {
			if !c.rec(r).is(fVirtual) && col.query.match(c, r) {
				col.matched = append(col.matched, r)
			}
		}
	}
}

func (c *compiler) realize(r int32) {
	rc := c.rec(r)
	rc.flags &^= fVirtual
	if rc.is(fCont) && c.defines[c.types.names[rc.typ]] != nil && !rc.is(fDone) {
		c.pending = append(c.pending, r)
	}
}

// safely runs f, recovering from the bail a recorded error unwinds with
// and restoring the evaluation depth, so one failure does not end the
// compilation.
func (c *compiler) safely(f func()) {
	depth := c.depth
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bail); !ok {
				panic(r)
			}
			c.depth = depth
		}
	}()
	f()
}

// chain is one chain of relationship arrows: operands[0] ops[0] operands[1]...
type chain struct {
	operands []operand
	ops      []string
	opPos    []srcPos
}

// operand is one side of an arrow: references and collectors.
type operand struct {
	refs  []refV
	colls []*collector
}

// chain evaluates a chain of arrows left to right; the edges are made after
// all declarations so collectors see everything. The value is the rightmost
// operand, as in Puppet.
func (c *compiler) chain(s *scope, n *manifest.Chain) any {
	var exprs []manifest.Expr
	var ops []string
	var opPos []srcPos
	// The chain is a left-deep tree: walk down its left spine without
	// recursion (a chain may be a million arrows long), then reverse.
	var e manifest.Expr = n
	for {
		ch, ok := e.(*manifest.Chain)
		if !ok {
			break
		}
		ops = append(ops, ch.Op)
		opPos = append(opPos, c.files.of(ch))
		exprs = append(exprs, ch.R)
		e = ch.L
	}
	exprs = append(exprs, e)
	slices.Reverse(exprs)
	slices.Reverse(ops)
	slices.Reverse(opPos)
	ch := &chain{ops: ops, opPos: opPos}
	var last any
	for _, e := range exprs {
		v := c.eval(s, e)
		last = v
		var op operand
		for _, x := range flatten([]any{v}, nil) {
			switch x := x.(type) {
			case refV:
				op.refs = append(op.refs, x)
			case *collector:
				op.colls = append(op.colls, x)
			default:
				c.fail(e.Position(), "Illegal relationship operand, can not form a relationship with something of type %s. A Catalog type is required.", typeName(x))
			}
		}
		ch.operands = append(ch.operands, op)
	}
	c.chains = append(c.chains, ch)
	return last
}

// resolveChain makes the edges of a chain. An operand that resolves to no
// resources (an empty collector or array) is bridged: the previous
// non-empty operand connects to the next one, with the arrow to the right
// of the gap, as Puppet does since 4.10.5 (PUP-1410).
func (c *compiler) resolveChain(ch *chain) []edge {
	var edges []edge
	type member struct {
		r       int32  // the record, -1 when not found
		ref     string // the reference, for messages about one not found
		virtual bool   // declared but never realized
	}
	sets := make([][]member, len(ch.operands))
	for i, op := range ch.operands {
		seen := map[int32]bool{}
		seenRef := map[string]bool{}
		for _, rv := range op.refs {
			r := c.find(rv)
			if r < 0 {
				ref := rv.String()
				if !seenRef[ref] {
					seenRef[ref] = true
					sets[i] = append(sets[i], member{r: -1, ref: ref})
				}
				continue
			}
			if !seen[r] {
				seen[r] = true
				sets[i] = append(sets[i], member{r: r, virtual: c.rec(r).is(fVirtual)})
			}
		}
		for _, col := range op.colls {
			for _, r := range col.matched {
				if !seen[r] {
					seen[r] = true
					sets[i] = append(sets[i], member{r: r})
				}
			}
		}
	}
	name := func(m member) string {
		if m.r < 0 {
			return m.ref
		}
		return c.ref(m.r)
	}
	prev := -1
	for i := range sets {
		if len(sets[i]) == 0 {
			continue
		}
		if prev < 0 {
			prev = i
			continue
		}
		op, at := ch.ops[i-1], ch.opPos[i-1]
		left, right := sets[prev], sets[i]
		for _, l := range left {
			for _, r := range right {
				src, dst := l, r
				if op == "<-" || op == "<~" {
					src, dst = r, l
				}
				switch {
				case src.virtual:
					// Puppet turns the arrow into a metaparameter of its
					// source, which leaves the catalog with the unrealized
					// resource: the relationship is silently dropped.
					continue
				case src.r < 0:
					c.errorf(c.pos(at), "Could not find resource '%s' for relationship on '%s'", name(src), name(dst))
					continue
				case dst.virtual:
					c.errorf(c.pos(at), "Could not find dependent %s for %s", name(dst), name(src))
					continue
				case dst.r < 0:
					c.errorf(c.pos(at), "Could not find resource '%s' for relationship from '%s'", name(dst), name(src))
					continue
				}
				kind := ekBefore
				if op == "~>" || op == "<~" {
					kind = ekNotify
				}
				edges = append(edges, edge{from: src.r, to: dst.r, kind: kind, via: viaOf(op), pos: at})
			}
		}
		prev = i
	}
	return edges
}
