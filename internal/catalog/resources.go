package catalog

import (
	"regexp"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// metaparams are accepted on every resource type.
var metaparams = map[string]bool{
	"before": true, "require": true, "notify": true, "subscribe": true,
	"schedule": true, "tag": true, "noop": true, "alias": true,
}

// relationParams are the metaparameters that make edges, in the order
// Puppet builds them.
var relationParams = []string{"require", "subscribe", "before", "notify"}

type attrVal struct {
	name string
	val  any
	pos  manifest.Pos
}

// evalAttrs evaluates a body's attributes; undef values leave the attribute
// unset, as in Puppet.
func (c *compiler) evalAttrs(s *scope, attrs []manifest.Attr) []attrVal {
	out := make([]attrVal, 0, len(attrs))
	seen := make(map[string]bool, len(attrs))
	for _, a := range attrs {
		if seen[a.Name] {
			c.fail(a.Position(), "The attribute '%s' has already been set", a.Name)
		}
		seen[a.Name] = true
		out = append(out, attrVal{name: a.Name, val: c.eval(s, a.Value), pos: a.Position()})
	}
	return out
}

// declare evaluates a resource declaration and returns references to what
// it declared: one ref, or an array for several titles or bodies.
func (c *compiler) declare(s *scope, d *manifest.ResourceDecl) any {
	typ := d.Type
	_, builtin := builtinTypes[typ]
	def := c.defines[typ]
	if !builtin && def == nil && typ != "class" {
		c.fail(d.Position(), "Unknown resource type: '%s'", typ)
	}
	if typ == "class" && d.Virtual {
		c.fail(d.Position(), "Classes cannot be virtual")
	}
	var bodyDefaults []attrVal
	for _, b := range d.Bodies {
		if _, ok := b.Title.(*manifest.DefaultLit); ok {
			bodyDefaults = c.evalAttrs(s, b.Attrs)
		}
	}
	var refs []any
	for _, b := range d.Bodies {
		if _, ok := b.Title.(*manifest.DefaultLit); ok {
			continue
		}
		titles := c.titles(s, b)
		attrs := c.evalAttrs(s, b.Attrs)
		for _, dv := range bodyDefaults {
			if !hasAttr(attrs, dv.name) {
				attrs = append(attrs, dv)
			}
		}
		for _, title := range titles {
			if typ == "class" {
				r := c.declareClass(s, title, attrs, b.Position())
				if r != nil {
					refs = append(refs, refV{Type: "Class", Title: r.r.Title})
				}
				continue
			}
			r := c.declareOne(s, typ, title, attrs, b.Position(), d.Virtual)
			if r != nil {
				refs = append(refs, refV{Type: capitalize(typ), Title: title})
				if def != nil {
					r.define = def
					if !d.Virtual {
						c.pending = append(c.pending, r)
					}
				}
			}
		}
	}
	if len(refs) == 1 {
		return refs[0]
	}
	return refs
}

func hasAttr(attrs []attrVal, name string) bool {
	for _, a := range attrs {
		if a.name == name {
			return true
		}
	}
	return false
}

// titles evaluates a body's title to a list of non-empty strings.
func (c *compiler) titles(s *scope, b manifest.ResourceBody) []string {
	v := c.eval(s, b.Title)
	if v == nil {
		c.fail(b.Title.Position(), "Missing title. The title expression resulted in undef")
	}
	list := flatten([]any{v}, nil)
	out := make([]string, 0, len(list))
	for i, t := range list {
		str, ok := t.(string)
		switch {
		case t == nil:
			c.fail(b.Title.Position(), "Missing title at index %d. The title expression resulted in an undef title", i)
		case !ok:
			c.fail(b.Title.Position(), "Illegal title type at index %d. Expected String, got %s", i, typeName(t))
		case str == "":
			c.fail(b.Title.Position(), "Missing title at index %d. The title expression resulted in an empty string", i)
		}
		out = append(out, str)
	}
	return out
}

// declareOne adds one resource; it reports duplicates with Puppet's message.
func (c *compiler) declareOne(s *scope, typ, title string, attrs []attrVal, pos manifest.Pos, virtual bool) *res {
	if old, dup := c.byKey[refKey(typ, title)]; dup {
		c.errorf(pos, "Duplicate declaration: %s is already declared at %s; cannot redeclare", formatRef(typ, title), where(old.r.Pos))
		return nil
	}
	r := c.newRes(typ, title, pos, s.container, c.defines[typ] != nil)
	r.scope = s
	r.virtual = virtual
	r.attrPos = make(attrPositions, 0, len(attrs))
	for _, a := range attrs {
		if a.val == nil {
			continue
		}
		r.attrs[a.name] = a.val
		r.attrPos.set(a.name, a.pos)
	}
	r.r.Tags = c.tagsFor(s, typ, title, r.attrs["tag"])
	if al, ok := r.attrs["alias"]; ok {
		for _, a := range flatten([]any{al}, nil) {
			name, ok := a.(string)
			if !ok {
				c.errorf(r.attrPos.get("alias"), "Parameter alias failed on %s: an alias must be a String", r.r.Ref())
				continue
			}
			key := refKey(typ, name)
			if other, taken := c.byKey[key]; taken && other != r {
				c.errorf(r.attrPos.get("alias"), "Cannot alias %s to %s; resource %s already declared %s",
					r.r.Ref(), name, formatRef(typ, name), where(other.r.Pos))
				continue
			}
			if other, taken := c.aliases[key]; taken {
				c.errorf(r.attrPos.get("alias"), "Cannot alias %s to %s; %s already uses that alias",
					r.r.Ref(), name, other.r.Ref())
				continue
			}
			c.aliases[key] = r
		}
	}
	return r
}

// validTag is Puppet's tag syntax.
var validTag = regexp.MustCompile(`^[[:alnum:]_][[:alnum:]_:.-]*$`)

// tagsFor computes a resource's tags: its type, its title if a valid tag,
// the tags of the scope (enclosing classes and defines), and explicit tags.
func (c *compiler) tagsFor(s *scope, typ, title string, explicit any) []string {
	tags := make([]string, 0, 4+len(s.tags))
	seen := make(map[string]bool, 4+len(s.tags))
	add := func(t string) {
		t = strings.ToLower(t)
		if t != "" && !seen[t] {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	add(typ)
	if validTag.MatchString(title) {
		add(title)
	}
	for _, t := range s.tags {
		add(t)
	}
	if explicit != nil {
		for _, t := range flatten([]any{explicit}, nil) {
			if str, ok := t.(string); ok {
				add(str)
			}
		}
	}
	return tags
}

// nameTags are the tags a class or define name contributes: the full name
// and each of its segments.
func nameTags(name string) []string {
	out := []string{strings.ToLower(name)}
	if strings.Contains(name, "::") {
		out = append(out, strings.Split(strings.ToLower(name), "::")...)
	}
	return out
}

// setDefaults records Type { attr => value } in the current scope.
func (c *compiler) setDefaults(s *scope, d *manifest.ResourceDefaults) {
	typ := strings.ToLower(d.Type)
	if _, ok := builtinTypes[typ]; !ok && c.defines[typ] == nil {
		c.fail(d.Position(), "Unknown resource type: '%s'", typ)
	}
	attrs := c.evalAttrs(s, d.Attrs)
	if s.defaults == nil {
		s.defaults = map[string]map[string]defaultAttr{}
	}
	m := s.defaults[typ]
	if m == nil {
		m = map[string]defaultAttr{}
		s.defaults[typ] = m
	}
	for _, a := range attrs {
		if _, dup := m[a.name]; dup {
			c.errorf(a.pos, "The attribute '%s' has already been set for %s defaults in this scope", a.name, capitalize(typ))
			continue
		}
		m[a.name] = defaultAttr{val: a.val, pos: a.pos}
	}
}

// applyDefaults fills unset attributes from resource defaults, the nearest
// scope (along the dynamic scope chain) winning.
func (c *compiler) applyDefaults(r *res) {
	for sc := r.scope; sc != nil; sc = sc.dyn {
		for name, d := range sc.defaults[r.r.Type] {
			if _, set := r.attrs[name]; set || d.val == nil {
				continue
			}
			r.attrs[name] = d.val
			r.attrPos.set(name, d.pos)
			if name == "tag" {
				r.r.Tags = c.tagsFor(r.scope, r.r.Type, r.r.Title, d.val)
			}
		}
	}
}

// defaultValue is the value a resource default would give r's attribute
// name, the nearest scope winning as in applyDefaults.
func (r *res) defaultValue(name string) (any, bool) {
	for sc := r.scope; sc != nil; sc = sc.dyn {
		if d, ok := sc.defaults[r.r.Type][name]; ok && d.val != nil {
			return d.val, true
		}
	}
	return nil, false
}

// includeClass declares a class include-style (idempotent) and returns it.
func (c *compiler) includeClass(s *scope, name string, pos manifest.Pos) *res {
	name = strings.ToLower(strings.TrimPrefix(name, "::"))
	if r := c.byKey[refKey("class", name)]; r != nil {
		return r
	}
	def := c.classes[name]
	if def == nil {
		c.fail(pos, "Could not find class ::%s", name)
	}
	r := c.evalClass(s, def, name, nil, pos)
	r.included = true
	return r
}

// declareClass is the resource-like declaration class { 'x': p => v }.
func (c *compiler) declareClass(s *scope, name string, attrs []attrVal, pos manifest.Pos) *res {
	name = strings.ToLower(strings.TrimPrefix(name, "::"))
	if old := c.byKey[refKey("class", name)]; old != nil {
		if old.included {
			c.errorf(pos, "Duplicate declaration: %s is already declared; cannot redeclare", formatRef("class", name))
			return nil
		}
		c.errorf(pos, "Duplicate declaration: %s is already declared at %s; cannot redeclare", formatRef("class", name), where(old.r.Pos))
		return nil
	}
	def := c.classes[name]
	if def == nil {
		c.fail(pos, "Could not find class ::%s", name)
	}
	return c.evalClass(s, def, name, attrs, pos)
}

func (c *compiler) evalClass(from *scope, def *manifest.ClassDef, name string, attrs []attrVal, pos manifest.Pos) *res {
	r := c.newRes("class", name, pos, c.stage, true)
	r.scope = from
	sc := newScope(c.top, from, r)
	sc.tags = nameTags(name)
	c.classSc[name] = sc
	sc.vars["title"] = name
	sc.vars["name"] = name
	params := map[string]bool{}
	for _, a := range attrs {
		if a.val == nil {
			continue
		}
		r.attrs[a.name] = a.val
		r.attrPos.set(a.name, a.pos)
	}
	if t, ok := r.attrs["tag"]; ok {
		for _, tg := range flatten([]any{t}, nil) {
			if str, ok := tg.(string); ok {
				sc.tags = append(sc.tags, strings.ToLower(str))
			}
		}
	}
	r.r.Tags = append([]string{"class"}, sc.tags...)
	c.bindParams(sc, r, def.Params, params)
	for _, a := range attrs {
		if !params[a.name] && !metaparams[a.name] {
			c.errorf(a.pos, "%s: has no parameter named '%s'", r.r.Ref(), a.name)
		}
	}
	c.evalBlock(sc, def.Body)
	return r
}

// bindParams binds class or define parameters from r.attrs and defaults.
func (c *compiler) bindParams(sc *scope, r *res, params []manifest.Param, known map[string]bool) {
	for _, p := range params {
		known[p.Name] = true
		if metaparams[p.Name] || p.Name == "title" || p.Name == "name" {
			c.errorf(p.Position(), "The parameter '$%s' is reserved and cannot be used", p.Name)
			continue
		}
		v, given := r.attrs[p.Name]
		pos := r.attrPos.get(p.Name)
		if !given {
			if p.Default == nil {
				c.errorf(r.r.Pos, "%s: expects a value for parameter '%s'", r.r.Ref(), p.Name)
				continue
			}
			pos = p.Default.Position()
			v = c.evalStatement(sc, p.Default)
		}
		if p.Type != nil {
			if msg := c.checkType(sc, p.Type, v); msg != "" {
				c.errorf(pos, "%s: parameter '%s' expects %s, got %s", r.r.Ref(), p.Name, msg, typeName(v))
			}
		}
		sc.vars[p.Name] = v
	}
}

// evalDefine evaluates a defined-type instance's body.
func (c *compiler) evalDefine(r *res) {
	r.done = true
	c.applyDefaults(r)
	sc := newScope(c.top, r.scope, r)
	sc.tags = append(append([]string(nil), r.r.Tags...), nameTags(r.r.Type)...)
	sc.vars["title"] = r.r.Title
	name := r.r.Title
	if n, ok := r.attrs["name"].(string); ok {
		name = n
	}
	sc.vars["name"] = name
	known := map[string]bool{"name": true}
	c.bindParams(sc, r, r.define.Params, known)
	for _, a := range sortedKeys(r.attrs) {
		if !known[a] && !metaparams[a] {
			c.errorf(r.attrPos.get(a), "%s: has no parameter named '%s'", r.r.Ref(), a)
		}
	}
	c.evalBlock(sc, r.define.Body)
}
