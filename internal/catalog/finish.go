package catalog

import (
	"path"
	"slices"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// finish turns the evaluated resources into a Catalog: defaults, inherited
// metaparameters, validation, exported parameters and every edge.
func (c *compiler) finish() *Catalog {
	n := c.recs.len()
	for i := range n {
		if !c.rec(i).is(fCont) {
			c.applyDefaults(i)
		}
	}
	c.inheritMeta()
	for i := range n {
		rc := c.rec(i)
		sortAttrs(rc.attrs())
		if spec := builtinTypes[c.types.names[rc.typ]]; spec != nil {
			c.validate(i, spec)
		} else {
			for _, a := range rc.attrs() {
				if metaparams[a.name] {
					c.validateMeta(i, a.name, a.val)
				}
			}
		}
	}
	// The chains' edges are resolved first so that the edge list is
	// allocated once, at its final size.
	chainEdges := make([][]edge, len(c.chains))
	size := len(c.extra)
	for i, ch := range c.chains {
		chainEdges[i] = c.resolveChain(ch)
		size += len(chainEdges[i])
	}
	for i := range n {
		rc := c.rec(i)
		if rc.is(fVirtual) {
			continue
		}
		for _, a := range rc.attrs() {
			if slices.Contains(relationParams, a.name) {
				if arr, isArr := a.val.([]any); isArr {
					size += len(arr)
				} else {
					size++
				}
			}
		}
	}
	edges := make([]edge, 0, size)
	// Relationship metaparameters, in resource order. (Each record's
	// containment in its container is implied by the record.)
	for i := range n {
		rc := c.rec(i)
		if rc.is(fVirtual) {
			continue
		}
		isJob := c.types.names[rc.typ] == "job"
		for _, mp := range relationParams {
			attrs := rc.attrs()
			k := findAttr(attrs, mp)
			if k < 0 {
				continue
			}
			at := attrs[k].pos
			for _, t := range flatten([]any{attrs[k].val}, nil) {
				if mp == "notify" && isJob && isNotifyTarget(t) {
					continue // where to send the job's notifications, not an edge
				}
				target := c.metaTarget(i, mp, t)
				if target < 0 {
					continue
				}
				e := edge{from: i, to: target, kind: ekBefore, via: viaOf(mp), pos: at}
				if mp == "require" || mp == "subscribe" {
					e.from, e.to = e.to, e.from
				}
				if mp == "notify" || mp == "subscribe" {
					e.kind = ekNotify
				}
				edges = append(edges, e)
			}
		}
	}
	// The relationship metaparameters have become edges: each record's
	// attributes turn into its exported parameters in place.
	for i := range n {
		c.exportParams(i)
	}
	for _, es := range chainEdges {
		edges = append(edges, es...)
	}
	edges = append(edges, c.extra...)
	edges = append(edges, c.autoEdges(edges)...)
	return &Catalog{
		recs:     c.recs,
		types:    c.types.names,
		namevars: c.types.namevars,
		files:    c.files.list,
		tagLists: c.tagLists,
		edges:    edges,
		index:    c.index,
		aliases:  c.aliases,
	}
}

// sortAttrs orders attributes by name.
func sortAttrs(attrs []attr) {
	slices.SortFunc(attrs, func(a, b attr) int { return strings.Compare(a.name, b.name) })
}

// exportParams makes record i's evaluated attributes its parameters: the
// relationship metaparameters and tags (kept elsewhere) are dropped and
// every value is exported to plain data, in place.
func (c *compiler) exportParams(i int32) {
	rc := c.rec(i)
	sortAttrs(rc.attrs())
	isJob := c.types.names[rc.typ] == "job"
	attrs := rc.attrs()
	out := attrs[:0]
	for _, a := range attrs {
		if a.name == "notify" && isJob {
			// A job's notify may name notification targets besides jobs.
			var targets []any
			for _, t := range flatten([]any{a.val}, nil) {
				if isNotifyTarget(t) {
					targets = append(targets, t)
				}
			}
			if len(targets) > 0 {
				a.val = targets
				out = append(out, a)
				continue
			}
		}
		switch a.name {
		case "before", "require", "notify", "subscribe", "tag":
			continue
		}
		v, err := export(a.val)
		if err != nil {
			c.errorf(c.pos(a.pos), "Parameter %s failed on %s: %v", a.name, c.ref(i), err)
			continue
		}
		a.val = v
		out = append(out, a)
	}
	clear(attrs[len(out):])
	if len(out) == 0 {
		out = nil
	}
	rc.setAttrs(out)
}

// isNotifyTarget reports whether a value of a job's notify is a place to
// send notifications (mailto:…, a URL) rather than a resource reference.
func isNotifyTarget(v any) bool {
	s, ok := v.(string)
	return ok && (strings.HasPrefix(s, "mailto:") || strings.Contains(s, "://"))
}

// metaTarget resolves one value of a relationship metaparameter of record
// r; -1 when it names nothing that may be ordered.
func (c *compiler) metaTarget(r int32, param string, v any) int32 {
	var ref refV
	switch x := v.(type) {
	case refV:
		ref = x
	case string:
		var ok bool
		if ref, ok = parseRefString(x); !ok {
			c.errorf(c.attrPosOr(r, param), "Parameter %s failed on %s: '%s' is not a resource reference like Exec['name']", param, c.ref(r), x)
			return -1
		}
	default:
		c.errorf(c.attrPosOr(r, param), "Parameter %s failed on %s: expected resource references, got %s", param, c.ref(r), typeName(v))
		return -1
	}
	t := c.find(ref)
	switch {
	case t < 0:
		c.errorf(c.attrPosOr(r, param), "Could not find resource '%s' in parameter '%s'", ref, param)
		return -1
	case c.rec(t).is(fVirtual) && (param == "require" || param == "subscribe"):
		c.errorf(c.attrPosOr(r, param), "Could not find dependency %s for %s", c.ref(t), c.ref(r))
		return -1
	case c.rec(t).is(fVirtual):
		c.errorf(c.attrPosOr(r, param), "Could not find dependent %s for %s", c.ref(t), c.ref(r))
		return -1
	}
	return t
}

// inheritedMeta are the metaparameters a container passes down: Puppet's
// non-relationship metaparameters that almanac has. Puppet also passes
// alias (which then clashes as soon as a container holds two resources),
// loglevel and audit.
var inheritedMeta = []string{"noop", "schedule"}

// inheritMeta passes noop and schedule down the containment graph the way
// Puppet's compiler does (add_resource_metaparams): breadth first from
// Class[Main] only, each resource or container that does not set one taking
// its container's value, its own value (set or inherited) passing on to
// what it contains. Classes declared with include or class {} belong to
// Stage[main], outside Class[Main], so their members inherit nothing from
// them unless a contain chain from Class[Main] reaches them.
func (c *compiler) inheritMeta() {
	given := false
	n := c.recs.len()
	for i := range n {
		rc := c.rec(i)
		if rc.is(fCont) || c.types.names[rc.typ] == "class" {
			for _, mp := range inheritedMeta {
				given = given || findAttr(rc.attrs(), mp) >= 0
			}
		}
	}
	if !given {
		return // nothing to pass on: spare a large catalog the walk
	}
	children := make(map[int32][]int32)
	for i := range n {
		if rc := c.rec(i); rc.cont >= 0 && !rc.is(fVirtual) {
			children[rc.cont] = append(children[rc.cont], i)
		}
	}
	for _, e := range c.extra {
		if e.kind == ekContain {
			children[e.from] = append(children[e.from], e.to)
		}
	}
	queue := []int32{c.main}
	seen := map[int32]bool{}
	for len(queue) > 0 {
		node := queue[0]
		queue = queue[1:]
		if seen[node] {
			continue
		}
		seen[node] = true
		for _, t := range children[node] {
			for _, mp := range inheritedMeta {
				v, ok := c.get(node, mp)
				if _, set := c.get(t, mp); ok && !set {
					from := c.rec(node).attrs()
					c.set(t, mp, v, from[findAttr(from, mp)].pos)
				}
			}
		}
		queue = append(queue, children[node]...)
	}
}

// autoEdges adds Puppet's automatic relationships: a file after the file
// resource managing its nearest ancestor directory, and an exec after the
// file resource managing its cwd. None is added where an explicit edge
// already links the pair in either direction.
func (c *compiler) autoEdges(explicit []edge) []edge {
	files := map[string]int32{}
	for _, r := range c.ofType("file") {
		if c.rec(r).is(fVirtual) {
			continue
		}
		if p, ok := c.getString(r, "path"); ok {
			files[path.Clean(p)] = r
		}
	}
	if len(files) == 0 {
		return nil
	}
	linked := make(map[[2]int32]bool, len(explicit))
	for _, e := range explicit {
		if e.kind != ekContain {
			linked[[2]int32{e.from, e.to}] = true
			linked[[2]int32{e.to, e.from}] = true
		}
	}
	var out []edge
	add := func(from, to int32, why string) {
		if from == to || linked[[2]int32{from, to}] {
			return
		}
		linked[[2]int32{from, to}] = true
		linked[[2]int32{to, from}] = true
		out = append(out, edge{from: from, to: to, kind: ekAuto, via: viaOf("autorequire " + why), pos: c.rec(to).pos})
	}
	for i := range c.recs.len() {
		rc := c.rec(i)
		if rc.is(fVirtual) {
			continue
		}
		switch c.types.names[rc.typ] {
		case "file":
			p, ok := c.getString(i, "path")
			if !ok {
				continue
			}
			for dir := path.Dir(path.Clean(p)); ; dir = path.Dir(dir) {
				if parent, ok := files[dir]; ok {
					add(parent, i, "parent directory")
					break
				}
				if dir == "/" || dir == "." {
					break
				}
			}
		case "exec":
			if cwd, ok := c.getString(i, "cwd"); ok {
				if f, ok := files[path.Clean(cwd)]; ok {
					add(f, i, "cwd")
				}
			}
		}
	}
	return out
}

// checkType checks v against a parameter's data type expression and
// returns "" or what was expected ("a String value").
func (c *compiler) checkType(s *scope, t manifest.Expr, v any) string {
	name, args := c.typeParts(s, t)
	ok := true
	want := "a " + name + " value"
	switch name {
	case "Any":
	case "String":
		_, ok = v.(string)
	case "Integer":
		_, ok = v.(int64)
		want = "an Integer value"
	case "Float":
		_, ok = v.(float64)
	case "Numeric":
		_, ok = toFloat(v)
	case "Boolean":
		_, ok = v.(bool)
	case "Undef":
		ok = v == nil
		want = "an Undef value"
	case "Scalar":
		switch v.(type) {
		case string, int64, float64, bool:
		default:
			ok = false
		}
	case "Data":
		_, err := export(v)
		ok = err == nil
	case "NotUndef":
		ok = v != nil
		want = "a value"
	case "Array":
		var arr []any
		arr, ok = v.([]any)
		want = "an Array value"
		if ok && len(args) > 0 {
			for _, e := range arr {
				if m := c.checkType(s, args[0], e); m != "" {
					return "an Array of " + strings.TrimPrefix(strings.TrimPrefix(m, "a "), "an ")
				}
			}
		}
	case "Hash":
		var h *hashV
		h, ok = v.(*hashV)
		if ok && len(args) == 2 {
			for _, k := range h.keys {
				if c.checkType(s, args[0], k) != "" || c.checkType(s, args[1], h.m[k]) != "" {
					return "a Hash with keys " + c.typeString(s, args[0]) + " and values " + c.typeString(s, args[1])
				}
			}
		}
	case "Optional":
		if v == nil {
			return ""
		}
		if len(args) == 1 {
			return c.checkType(s, args[0], v)
		}
	case "Variant":
		for _, a := range args {
			if c.checkType(s, a, v) == "" {
				return ""
			}
		}
		ok = false
		want = "a value of type " + c.typeString(s, t)
	case "Enum":
		str, isStr := v.(string)
		ok = false
		var names []string
		for _, a := range args {
			e := toString(c.eval(s, a))
			names = append(names, "'"+e+"'")
			if isStr && str == e {
				ok = true
			}
		}
		want = "a match for Enum[" + strings.Join(names, ", ") + "]"
	case "Pattern":
		str, isStr := v.(string)
		ok = false
		for _, a := range args {
			if re, isRe := c.eval(s, a).(interface{ MatchString(string) bool }); isRe && isStr && re.MatchString(str) {
				ok = true
			}
		}
		want = "a match for " + c.typeString(s, t)
	default:
		c.fail(t.Position(), "unsupported: data type '%s'", name)
	}
	if ok {
		return ""
	}
	return want
}

func (c *compiler) typeParts(s *scope, t manifest.Expr) (string, []manifest.Expr) {
	switch n := t.(type) {
	case *manifest.TypeName:
		return n.Name, nil
	case *manifest.Access:
		if tn, ok := n.Target.(*manifest.TypeName); ok {
			return tn.Name, n.Keys
		}
	}
	c.fail(t.Position(), "unsupported: data type expression")
	return "", nil
}

func (c *compiler) typeString(s *scope, t manifest.Expr) string {
	name, args := c.typeParts(s, t)
	if len(args) == 0 {
		return name
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if _, isType := a.(*manifest.TypeName); isType {
			parts[i] = c.typeString(s, a)
		} else if acc, isAcc := a.(*manifest.Access); isAcc {
			parts[i] = c.typeString(s, acc)
		} else {
			parts[i] = quoted(c.eval(s, a))
		}
	}
	return name + "[" + strings.Join(parts, ", ") + "]"
}
