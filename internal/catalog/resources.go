package catalog

import (
	"regexp"
	"slices"
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

// evalAttrs evaluates a body's attributes; undef values (nil) are kept for
// the caller to drop, as they leave the attribute unset in Puppet.
func (c *compiler) evalAttrs(s *scope, attrs []manifest.Attr) []attr {
	if len(attrs) == 0 {
		return nil
	}
	out := make([]attr, 0, len(attrs))
	for _, a := range attrs {
		if findAttr(out, a.Name) >= 0 {
			c.fail(a.Position(), "The attribute '%s' has already been set", a.Name)
		}
		out = append(out, attr{name: a.Name, val: c.eval(s, a.Value), pos: c.files.at(a.Loc)})
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
	var bodyDefaults []attr
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
			if findAttr(attrs, dv.name) < 0 {
				attrs = append(attrs, dv)
			}
		}
		at := c.files.at(b.Loc)
		for k, title := range titles {
			if typ == "class" {
				r := c.declareClass(s, title, attrs, at)
				if r >= 0 {
					refs = append(refs, refV{Type: "Class", Title: c.rec(r).title})
				}
				continue
			}
			// Each resource gets attributes of its own; the last one
			// takes the evaluated list.
			own := attrs
			if k < len(titles)-1 {
				own = slices.Clone(attrs)
			}
			r := c.declareOne(s, typ, title, own, at, d.Virtual)
			if r >= 0 {
				refs = append(refs, refV{Type: capitalize(typ), Title: title})
				if def != nil && !d.Virtual {
					c.pending = append(c.pending, r)
				}
			}
		}
	}
	if len(refs) == 1 {
		return refs[0]
	}
	return refs
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

// declareOne adds one resource, taking attrs as its attributes (undef ones
// dropped); it reports duplicates with Puppet's message. It returns the
// record, or -1.
func (c *compiler) declareOne(s *scope, typ, title string, attrs []attr, at srcPos, virtual bool) int32 {
	if old := c.lookup(typ, title); old >= 0 {
		c.errorf(c.pos(at), "Duplicate declaration: %s is already declared at %s; cannot redeclare", formatRef(typ, title), where(c.posOf(old)))
		return -1
	}
	i := c.newRes(typ, title, at, s.container, c.defines[typ] != nil)
	r := c.rec(i)
	r.scope = c.scopeID(s)
	if virtual {
		r.flags |= fVirtual
	}
	if validTag.MatchString(title) {
		r.flags |= fTitleTag
	}
	r.setAttrs(definedAttrs(attrs))
	tag, _ := c.get(i, "tag")
	r.tags = c.extraTags(s, tag)
	if al, ok := c.get(i, "alias"); ok {
		for _, a := range flatten([]any{al}, nil) {
			name, ok := a.(string)
			if !ok {
				c.errorf(c.attrPosOr(i, "alias"), "Parameter alias failed on %s: an alias must be a String", c.ref(i))
				continue
			}
			if other := c.lookup(typ, name); other >= 0 && other != i {
				c.errorf(c.attrPosOr(i, "alias"), "Cannot alias %s to %s; resource %s already declared %s",
					c.ref(i), name, formatRef(typ, name), where(c.posOf(other)))
				continue
			}
			key := refKey(typ, name)
			if other, taken := c.aliases[key]; taken {
				c.errorf(c.attrPosOr(i, "alias"), "Cannot alias %s to %s; %s already uses that alias",
					c.ref(i), name, c.ref(other))
				continue
			}
			c.aliases[key] = i
		}
	}
	return i
}

// definedAttrs drops the undef values of attrs, in place.
func definedAttrs(attrs []attr) []attr {
	out := attrs[:0]
	for _, a := range attrs {
		if a.val != nil {
			out = append(out, a)
		}
	}
	clear(attrs[len(out):])
	if len(out) == 0 {
		return nil
	}
	return out
}

// validTag is Puppet's tag syntax.
var validTag = regexp.MustCompile(`^[[:alnum:]_][[:alnum:]_:.-]*$`)

// extraTags returns the tags field of a record declared in s whose tag
// metaparameter is explicit: the tags of the scope (enclosing classes and
// defines) and the explicit ones come after those of the record's type
// and title (see computeTags). Records of a scope without explicit tags
// share one list.
func (c *compiler) extraTags(s *scope, explicit any) int32 {
	if explicit == nil {
		if len(s.tags) == 0 {
			return 0
		}
		if s.tagList == 0 {
			c.tagLists = append(c.tagLists, s.tags)
			s.tagList = int32(len(c.tagLists))
		}
		return s.tagList
	}
	extra := slices.Clip(s.tags)
	for _, t := range flatten([]any{explicit}, nil) {
		if str, ok := t.(string); ok {
			extra = append(extra, str)
		}
	}
	c.tagLists = append(c.tagLists, extra)
	return int32(len(c.tagLists))
}

// exactTags returns the tags field of a record whose tags are exactly tags.
func (c *compiler) exactTags(tags []string) int32 {
	c.tagLists = append(c.tagLists, tags)
	return -int32(len(c.tagLists))
}

// tags returns the tags of record i.
func (c *compiler) tags(i int32) []string {
	return tagsOf(c.rec(i), c.types.names, c.tagLists)
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
			c.errorf(c.pos(a.pos), "The attribute '%s' has already been set for %s defaults in this scope", a.name, capitalize(typ))
			continue
		}
		m[a.name] = defaultAttr{val: a.val, pos: a.pos}
	}
}

// applyDefaults fills unset attributes from resource defaults, the nearest
// scope (along the dynamic scope chain) winning.
func (c *compiler) applyDefaults(i int32) {
	typ := c.typeOf(i)
	for sc := c.scopeOf(i); sc != nil; sc = sc.dyn {
		for name, d := range sc.defaults[typ] {
			if _, set := c.get(i, name); set || d.val == nil {
				continue
			}
			c.set(i, name, d.val, d.pos)
			if name == "tag" {
				c.rec(i).tags = c.extraTags(c.scopeOf(i), d.val)
			}
		}
	}
}

// defaultValue is the value a resource default would give record i's
// attribute name, the nearest scope winning as in applyDefaults.
func (c *compiler) defaultValue(i int32, name string) (any, bool) {
	typ := c.typeOf(i)
	for sc := c.scopeOf(i); sc != nil; sc = sc.dyn {
		if d, ok := sc.defaults[typ][name]; ok && d.val != nil {
			return d.val, true
		}
	}
	return nil, false
}

// includeClass declares a class include-style (idempotent) and returns it.
func (c *compiler) includeClass(s *scope, name string, at srcPos) int32 {
	name = strings.ToLower(strings.TrimPrefix(name, "::"))
	if r := c.lookup("class", name); r >= 0 {
		return r
	}
	def := c.classes[name]
	if def == nil {
		c.fail(c.pos(at), "Could not find class ::%s", name)
	}
	r := c.evalClass(s, def, name, nil, at)
	c.rec(r).flags |= fIncluded
	return r
}

// declareClass is the resource-like declaration class { 'x': p => v }; it
// returns the class's record, or -1.
func (c *compiler) declareClass(s *scope, name string, attrs []attr, at srcPos) int32 {
	name = strings.ToLower(strings.TrimPrefix(name, "::"))
	if old := c.lookup("class", name); old >= 0 {
		if c.rec(old).is(fIncluded) {
			c.errorf(c.pos(at), "Duplicate declaration: %s is already declared; cannot redeclare", formatRef("class", name))
			return -1
		}
		c.errorf(c.pos(at), "Duplicate declaration: %s is already declared at %s; cannot redeclare", formatRef("class", name), where(c.posOf(old)))
		return -1
	}
	def := c.classes[name]
	if def == nil {
		c.fail(c.pos(at), "Could not find class ::%s", name)
	}
	return c.evalClass(s, def, name, attrs, at)
}

func (c *compiler) evalClass(from *scope, def *manifest.ClassDef, name string, attrs []attr, at srcPos) int32 {
	r := c.newRes("class", name, at, c.stage, true)
	c.rec(r).scope = c.scopeID(from)
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
		c.set(r, a.name, a.val, a.pos)
	}
	if t, ok := c.get(r, "tag"); ok {
		for _, tg := range flatten([]any{t}, nil) {
			if str, ok := tg.(string); ok {
				sc.tags = append(sc.tags, strings.ToLower(str))
			}
		}
	}
	c.rec(r).tags = c.exactTags(append([]string{"class"}, sc.tags...))
	c.bindParams(sc, r, def.Params, params)
	for _, a := range attrs {
		if !params[a.name] && !metaparams[a.name] {
			c.errorf(c.pos(a.pos), "%s: has no parameter named '%s'", c.ref(r), a.name)
		}
	}
	c.evalBlock(sc, def.Body)
	return r
}

// bindParams binds class or define parameters from record r's attributes
// and defaults.
func (c *compiler) bindParams(sc *scope, r int32, params []manifest.Param, known map[string]bool) {
	for _, p := range params {
		known[p.Name] = true
		if metaparams[p.Name] || p.Name == "title" || p.Name == "name" {
			c.errorf(p.Position(), "The parameter '$%s' is reserved and cannot be used", p.Name)
			continue
		}
		v, given := c.get(r, p.Name)
		pos := c.attrPosOr(r, p.Name)
		if !given {
			if p.Default == nil {
				c.errorf(c.posOf(r), "%s: expects a value for parameter '%s'", c.ref(r), p.Name)
				continue
			}
			pos = p.Default.Position()
			v = c.evalStatement(sc, p.Default)
		}
		if p.Type != nil {
			if msg := c.checkType(sc, p.Type, v); msg != "" {
				c.errorf(pos, "%s: parameter '%s' expects %s, got %s", c.ref(r), p.Name, msg, typeName(v))
			}
		}
		sc.vars[p.Name] = v
	}
}

// evalDefine evaluates a defined-type instance's body.
func (c *compiler) evalDefine(r int32) {
	c.rec(r).flags |= fDone
	c.applyDefaults(r)
	typ := c.typeOf(r)
	def := c.defines[typ]
	sc := newScope(c.top, c.scopeOf(r), r)
	sc.tags = append(slices.Clip(c.tags(r)), nameTags(typ)...)
	title := c.rec(r).title
	sc.vars["title"] = title
	name := title
	if n, ok := c.get(r, "name"); ok {
		if n, ok := n.(string); ok {
			name = n
		}
	}
	sc.vars["name"] = name
	known := map[string]bool{"name": true}
	c.bindParams(sc, r, def.Params, known)
	for _, a := range sortedAttrNames(c.rec(r).attrs()) {
		if !known[a] && !metaparams[a] {
			c.errorf(c.attrPosOr(r, a), "%s: has no parameter named '%s'", c.ref(r), a)
		}
	}
	c.evalBlock(sc, def.Body)
}

// sortedAttrNames returns the names of attrs, sorted.
func sortedAttrNames(attrs []attr) []string {
	names := make([]string, len(attrs))
	for i, a := range attrs {
		names[i] = a.name
	}
	slices.Sort(names)
	return names
}
