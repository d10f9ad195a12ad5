package catalog

import (
	"path"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// finish turns the evaluated resources into a Catalog: defaults, inherited
// metaparameters, validation, exported parameters and every edge.
func (c *compiler) finish() *Catalog {
	cat := &Catalog{index: make(map[rkey]*Resource, len(c.all))}
	for _, r := range c.all {
		if r.define == nil && !r.isCont {
			c.applyDefaults(r)
		}
	}
	c.inheritMeta()
	for _, r := range c.all {
		if spec := builtinTypes[r.r.Type]; spec != nil {
			c.validate(r, spec)
		} else {
			for _, name := range sortedKeys(r.attrs) {
				if metaparams[name] {
					c.validateMeta(r, name, r.attrs[name])
				}
			}
		}
		r.r.Virtual = r.virtual
		if r.isCont || r.r.Type == "class" || r.r.Type == "stage" {
			cat.Containers = append(cat.Containers, r.r)
		} else {
			cat.Resources = append(cat.Resources, r.r)
		}
		cat.index[refKey(r.r.Type, r.r.Title)] = r.r
	}
	for key, r := range c.aliases {
		if _, taken := cat.index[key]; !taken {
			cat.index[key] = r.r
		}
	}
	// The chains' edges are resolved first so that the edge list is
	// allocated once, at its final size.
	chainEdges := make([][]Edge, len(c.chains))
	n := len(c.all) + len(c.extra)
	for i, ch := range c.chains {
		chainEdges[i] = c.resolveChain(ch)
		n += len(chainEdges[i])
	}
	for _, r := range c.all {
		if r.virtual {
			continue
		}
		for _, mp := range relationParams {
			if v, ok := r.attrs[mp]; ok {
				if arr, isArr := v.([]any); isArr {
					n += len(arr)
				} else {
					n++
				}
			}
		}
	}
	cat.Edges = make([]Edge, 0, n+n/8)
	// Containment.
	for _, r := range c.all {
		if r.container != nil && !r.virtual {
			cat.Edges = append(cat.Edges, Edge{From: r.container.r.Ref(), To: r.r.Ref(), Kind: Contain, Via: "contain", Pos: r.r.Pos})
		}
	}
	// Relationship metaparameters, in resource order.
	for _, r := range c.all {
		if r.virtual {
			continue
		}
		for _, mp := range relationParams {
			v, ok := r.attrs[mp]
			if !ok {
				continue
			}
			for _, t := range flatten([]any{v}, nil) {
				if mp == "notify" && r.r.Type == "job" && isNotifyTarget(t) {
					continue // where to send the job's notifications, not an edge
				}
				target := c.metaTarget(r, mp, t)
				if target == nil {
					continue
				}
				e := Edge{From: r.r.Ref(), To: target.r.Ref(), Kind: Before, Via: mp, Pos: r.attrPos.get(mp)}
				if mp == "require" || mp == "subscribe" {
					e.From, e.To = e.To, e.From
				}
				if mp == "notify" || mp == "subscribe" {
					e.Kind = Notify
				}
				cat.Edges = append(cat.Edges, e)
			}
		}
	}
	// The relationship metaparameters have become edges: each resource's
	// attributes turn into its exported parameters in place, so a large
	// catalog never holds two maps per resource at once.
	for _, r := range c.all {
		c.exportParams(r)
	}
	for _, es := range chainEdges {
		cat.Edges = append(cat.Edges, es...)
	}
	cat.Edges = append(cat.Edges, c.extra...)
	cat.Edges = append(cat.Edges, c.autoEdges(cat.Edges)...)
	return cat
}

// exportParams makes r's evaluated attributes its Params: the relationship
// metaparameters and tags (kept elsewhere) are dropped and every value is
// exported to plain data. The attribute map is reused.
func (c *compiler) exportParams(r *res) {
	for _, name := range sortedKeys(r.attrs) {
		if name == "notify" && r.r.Type == "job" {
			// A job's notify may name notification targets besides jobs.
			var targets []any
			for _, t := range flatten([]any{r.attrs[name]}, nil) {
				if isNotifyTarget(t) {
					targets = append(targets, t)
				}
			}
			if len(targets) > 0 {
				r.attrs[name] = targets
				continue
			}
		}
		switch name {
		case "before", "require", "notify", "subscribe", "tag":
			delete(r.attrs, name)
			continue
		}
		v, err := export(r.attrs[name])
		if err != nil {
			c.paramFail(r, name, "%v", err)
			delete(r.attrs, name)
			continue
		}
		r.attrs[name] = v
	}
	r.r.Params = r.attrs
}

// isNotifyTarget reports whether a value of a job's notify is a place to
// send notifications (mailto:…, a URL) rather than a resource reference.
func isNotifyTarget(v any) bool {
	s, ok := v.(string)
	return ok && (strings.HasPrefix(s, "mailto:") || strings.Contains(s, "://"))
}

// metaTarget resolves one value of a relationship metaparameter.
func (c *compiler) metaTarget(r *res, param string, v any) *res {
	var ref refV
	switch x := v.(type) {
	case refV:
		ref = x
	case string:
		var ok bool
		if ref, ok = parseRefString(x); !ok {
			c.errorf(r.attrPos.get(param), "Parameter %s failed on %s: '%s' is not a resource reference like Exec['name']", param, r.r.Ref(), x)
			return nil
		}
	default:
		c.errorf(r.attrPos.get(param), "Parameter %s failed on %s: expected resource references, got %s", param, r.r.Ref(), typeName(v))
		return nil
	}
	t := c.find(ref)
	switch {
	case t == nil:
		c.errorf(r.attrPos.get(param), "Could not find resource '%s' in parameter '%s'", ref, param)
		return nil
	case t.virtual && (param == "require" || param == "subscribe"):
		c.errorf(r.attrPos.get(param), "Could not find dependency %s for %s", t.r.Ref(), r.r.Ref())
		return nil
	case t.virtual:
		c.errorf(r.attrPos.get(param), "Could not find dependent %s for %s", t.r.Ref(), r.r.Ref())
		return nil
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
	for _, r := range c.all {
		if r.isCont || r.r.Type == "class" {
			for _, mp := range inheritedMeta {
				_, set := r.attrs[mp]
				given = given || set
			}
		}
	}
	if !given {
		return // nothing to pass on: spare a large catalog the walk
	}
	children := make(map[*res][]*res)
	for _, r := range c.all {
		if r.container != nil && !r.virtual {
			children[r.container] = append(children[r.container], r)
		}
	}
	for _, e := range c.extra {
		if e.Kind != Contain {
			continue
		}
		from, okF := parseRefString(e.From)
		to, okT := parseRefString(e.To)
		if !okF || !okT {
			continue
		}
		if f, t := c.find(from), c.find(to); f != nil && t != nil {
			children[f] = append(children[f], t)
		}
	}
	queue := []*res{c.main}
	seen := map[*res]bool{}
	for len(queue) > 0 {
		node := queue[0]
		queue = queue[1:]
		if seen[node] {
			continue
		}
		seen[node] = true
		for _, t := range children[node] {
			for _, mp := range inheritedMeta {
				v, ok := node.attrs[mp]
				if _, set := t.attrs[mp]; ok && !set {
					t.attrs[mp] = v
					t.attrPos.set(mp, node.attrPos.get(mp))
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
func (c *compiler) autoEdges(explicit []Edge) []Edge {
	files := map[string]*res{}
	for _, r := range c.byType["file"] {
		if r.virtual {
			continue
		}
		if p, ok := r.attrs["path"].(string); ok {
			files[path.Clean(p)] = r
		}
	}
	if len(files) == 0 {
		return nil
	}
	linked := make(map[[2]string]bool, len(explicit))
	for _, e := range explicit {
		if e.Kind != Contain {
			linked[[2]string{e.From, e.To}] = true
			linked[[2]string{e.To, e.From}] = true
		}
	}
	var out []Edge
	add := func(from, to *res, why string) {
		f, t := from.r.Ref(), to.r.Ref()
		if f == t || linked[[2]string{f, t}] {
			return
		}
		linked[[2]string{f, t}] = true
		linked[[2]string{t, f}] = true
		out = append(out, Edge{From: f, To: t, Kind: Auto, Via: "autorequire " + why, Pos: to.r.Pos})
	}
	for _, r := range c.all {
		if r.virtual {
			continue
		}
		switch r.r.Type {
		case "file":
			p, ok := r.attrs["path"].(string)
			if !ok {
				continue
			}
			for dir := path.Dir(path.Clean(p)); ; dir = path.Dir(dir) {
				if parent := files[dir]; parent != nil {
					add(parent, r, "parent directory")
					break
				}
				if dir == "/" || dir == "." {
					break
				}
			}
		case "exec":
			if cwd, ok := r.attrs["cwd"].(string); ok {
				if f := files[path.Clean(cwd)]; f != nil {
					add(f, r, "cwd")
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
