package catalog

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// maxResources bounds a compilation so a runaway define recursion ends with
// an error instead of exhausting memory.
const maxResources = 500_000

// maxEvalDepth bounds the nesting of evaluation (expressions inside
// expressions, classes including classes) so that no manifest can exhaust
// the stack. Each level takes well under a kilobyte of stack.
const maxEvalDepth = 10_000

// maxIterations bounds iterating over an Integer (5.each |$i| { ... }).
const maxIterations = 100_000

type defaultAttr struct {
	val any
	pos srcPos
}

// scope holds variables and resource defaults. parent is the lexical parent
// for variable lookup; dyn is the dynamic parent for resource defaults.
type scope struct {
	vars      map[string]any
	parent    *scope
	dyn       *scope
	defaults  map[string]map[string]defaultAttr
	container int32 // the record of the innermost container
	matches   []string
	tags      []string // tags inherited by resources declared here
	// id is the scope's index in compiler.scopes once a record was
	// declared in it, else -1; tagList is the list of its tags among
	// the compiler's tag lists (1-based), 0 until a record needs it.
	id      int32
	tagList int32
}

func newScope(parent, dyn *scope, container int32) *scope {
	s := &scope{vars: map[string]any{}, parent: parent, dyn: dyn, container: container, id: -1}
	if dyn != nil {
		s.tags = dyn.tags
	}
	return s
}

type compiler struct {
	errs     manifest.ErrorList
	classes  map[string]*manifest.ClassDef
	defines  map[string]*manifest.DefineDef
	recs     recStore
	types    typeTable
	files    fileTable
	index    refIndex
	aliases  map[rkey]int32
	byType   [][]int32 // records by type number
	scopes   []*scope  // the scopes records were declared in
	tagLists [][]string
	top      *scope
	stage    int32
	main     int32
	classSc  map[string]*scope
	pending  []int32 // define instances to evaluate
	colls    []*collector
	chains   []*chain
	realizes []realizeReq
	extra    []edge // require/contain function edges
	opts     Options
	nodes    nodeDefs
	depth    int // current nesting of eval
}

type realizeReq struct {
	ref refV
	pos srcPos
}

// bail unwinds evaluation to the enclosing statement after an error.
type bail struct{}

// Compile evaluates the files as one manifest (like one site.pp split into
// files, in the order given) and returns the catalog. On errors it returns
// the partial catalog and a manifest.ErrorList with every error, sorted by
// position.
func Compile(files ...*manifest.File) (*Catalog, error) {
	return CompileWith(Options{}, files...)
}

// CompileWith is [Compile] for the host opts describes: the node it
// compiles for, its facts and the schedules that exist outside the manifests.
func CompileWith(opts Options, files ...*manifest.File) (*Catalog, error) {
	c := newCompiler(opts)
	for _, f := range files {
		if f != nil {
			c.hoist(f.Body)
		}
	}
	for _, f := range files {
		if f != nil {
			c.begin(f.Name, true)
			c.evalBlock(c.top, f.Body)
		}
	}
	c.begin("", false)
	return c.end()
}

// Source is one manifest to compile: its name in positions and its text.
type Source struct {
	Name, Text string
}

// CompileSources parses the manifests and compiles them as [CompileWith]
// compiles their parsed files, without ever holding a whole syntax tree:
// each is parsed twice, first for its definitions (classes, defined types,
// nodes, which may be used before they appear) and its syntax errors, then
// statement by statement, each evaluated as soon as it is parsed and then
// dropped. When any manifest has syntax errors none is compiled: the
// catalog is nil and the error is a manifest.ErrorList of every syntax
// error, sorted by position.
func CompileSources(opts Options, srcs ...Source) (*Catalog, error) {
	c := newCompiler(opts)
	var syntax manifest.ErrorList
	for _, s := range srcs {
		err := manifest.ParseEach(s.Name, s.Text, func(e manifest.Expr) {
			if isDefinition(e) {
				c.hoist([]manifest.Expr{e})
			}
		})
		var el manifest.ErrorList
		if errors.As(err, &el) {
			syntax = append(syntax, el...)
		} else if err != nil {
			return nil, err
		}
	}
	if len(syntax) > 0 {
		syntax.Sort()
		return nil, syntax
	}
	for _, s := range srcs {
		c.begin(s.Name, true)
		err := manifest.ParseEach(s.Name, s.Text, func(e manifest.Expr) {
			if !isDefinition(e) {
				c.evalStatement(c.top, e)
			}
		})
		if err != nil {
			// The first parse found no error: the second cannot either.
			return nil, fmt.Errorf("catalog: %s parsed differently the second time: %w", s.Name, err)
		}
	}
	c.begin("", false)
	return c.end()
}

// isDefinition reports whether e defines a class, a defined type or a node,
// which compilation hoists rather than evaluates.
func isDefinition(e manifest.Expr) bool {
	switch e.(type) {
	case *manifest.ClassDef, *manifest.DefineDef, *manifest.NodeDef:
		return true
	}
	return false
}

func newCompiler(opts Options) *compiler {
	return &compiler{
		opts:    opts,
		classes: map[string]*manifest.ClassDef{},
		defines: map[string]*manifest.DefineDef{},
		aliases: map[rkey]int32{},
		classSc: map[string]*scope{},
		stage:   -1,
		main:    -1,
	}
}

// begin starts evaluation, once every definition is hoisted, before the
// statements of the first manifest, named file (main is declared there,
// when there is a file); later calls do nothing.
func (c *compiler) begin(file string, isFile bool) {
	if c.top != nil {
		return
	}
	var at srcPos
	if isFile {
		at = c.files.start(file)
	}
	c.stage = c.newRes("stage", "main", at, -1, true)
	c.main = c.newRes("class", "main", at, c.stage, true)
	c.rec(c.stage).tags = c.exactTags(nil)
	c.rec(c.main).tags = c.exactTags(nil)
	c.top = newScope(nil, nil, c.main)
	c.classSc["main"] = c.top
	c.setFacts()
}

// end finishes evaluation once every top-level statement is evaluated:
// the node definition, pending defined types, collectors, then the catalog.
func (c *compiler) end() (*Catalog, error) {
	c.evalNodeDefinition()
	c.settle()
	cat := c.finish()
	c.errs.Sort()
	return cat, c.errs.Err()
}

func (c *compiler) errorf(pos manifest.Pos, format string, args ...any) {
	c.errs.Add(pos, format, args...)
}

// fail records an error and unwinds to the enclosing statement.
func (c *compiler) fail(pos manifest.Pos, format string, args ...any) {
	c.errs.Add(pos, format, args...)
	panic(bail{})
}

// hoist registers class and define definitions wherever they appear, so
// they may be used before their definition, as in Puppet.
func (c *compiler) hoist(body []manifest.Expr) {
	for _, e := range body {
		switch d := e.(type) {
		case *manifest.ClassDef:
			name := strings.ToLower(d.Name)
			if old, dup := c.classes[name]; dup {
				c.errorf(d.Position(), "Class '%s' is already defined at %s; cannot redefine", name, where(old.Position()))
				continue
			}
			if name == "main" || name == "settings" {
				c.errorf(d.Position(), "The class name '%s' is reserved", name)
				continue
			}
			c.classes[name] = d
			c.hoist(d.Body)
		case *manifest.DefineDef:
			name := strings.ToLower(d.Name)
			if old, dup := c.defines[name]; dup {
				c.errorf(d.Position(), "Defined type '%s' is already defined at %s; cannot redefine", name, where(old.Position()))
				continue
			}
			if builtinTypes[name] != nil || name == "class" || name == "stage" {
				c.errorf(d.Position(), "Defined type '%s' conflicts with a built-in resource type", name)
				continue
			}
			c.defines[name] = d
			c.hoist(d.Body)
		case *manifest.NodeDef:
			c.hoistNode(d)
		}
	}
}

// where renders a position the way Puppet's messages cite one.
func where(p manifest.Pos) string {
	return fmt.Sprintf("(file: %s, line: %d)", p.File, p.Line)
}

// rec returns record i.
func (c *compiler) rec(i int32) *rec { return c.recs.at(i) }

// pos expands a compact position.
func (c *compiler) pos(p srcPos) manifest.Pos { return pos(c.files.list, p) }

// posOf is the position of record i.
func (c *compiler) posOf(i int32) manifest.Pos { return c.pos(c.rec(i).pos) }

// typeOf is the type of record i.
func (c *compiler) typeOf(i int32) string { return c.types.names[c.rec(i).typ] }

// ref is the reference of record i, e.g. Exec[backup] or Class[Web].
func (c *compiler) ref(i int32) string {
	r := c.rec(i)
	return formatRef(c.types.names[r.typ], r.title)
}

// newRes declares a record; isContainer marks a stage, class, node or
// defined-type instance.
func (c *compiler) newRes(typ, title string, at srcPos, container int32, isContainer bool) int32 {
	if c.recs.len() >= maxResources {
		c.fail(c.pos(at), "too many resources (more than %d): is a defined type declaring itself?", maxResources)
	}
	t, ok := c.types.id(typ)
	if !ok {
		c.fail(c.pos(at), "too many resource types (more than %d)", math.MaxUint16+1)
	}
	r := rec{title: title, pos: at, cont: container, scope: -1, typ: t}
	if isContainer {
		r.flags |= fCont
	}
	i := c.recs.add(r)
	c.index.add(&c.recs, i)
	for int(t) >= len(c.byType) {
		c.byType = append(c.byType, nil)
	}
	c.byType[t] = append(c.byType[t], i)
	return i
}

// find looks a reference up, through aliases too; -1 when absent.
func (c *compiler) find(ref refV) int32 {
	typ := strings.ToLower(ref.Type)
	if t, ok := c.types.lookup(typ); ok {
		if i := c.index.find(&c.recs, t, keyTitle(typ, ref.Title)); i >= 0 {
			return i
		}
	}
	if i, ok := c.aliases[refKey(ref.Type, ref.Title)]; ok {
		return i
	}
	return -1
}

// lookup finds the record of type typ (lower case) titled title; -1 when
// absent.
func (c *compiler) lookup(typ, title string) int32 {
	t, ok := c.types.lookup(typ)
	if !ok {
		return -1
	}
	return c.index.find(&c.recs, t, keyTitle(typ, title))
}

// get returns attribute name of record i: set, or the title for a namevar
// the title gives.
func (c *compiler) get(i int32, name string) (any, bool) {
	r := c.rec(i)
	if attrs := r.attrs(); attrs != nil {
		if k := findAttr(attrs, name); k >= 0 {
			return attrs[k].val, true
		}
	}
	if r.is(fNameTitle) && name == c.types.namevars[r.typ] {
		return r.title, true
	}
	return nil, false
}

// set sets attribute name of record i, replacing its value and position.
func (c *compiler) set(i int32, name string, v any, at srcPos) {
	r := c.rec(i)
	attrs := r.attrs()
	if k := findAttr(attrs, name); k >= 0 {
		attrs[k].val, attrs[k].pos = v, at
		return
	}
	r.setAttrs(append(attrs, attr{name: name, val: v, pos: at}))
}

// replace sets the value of attribute name of record i, keeping where it
// was set; an attribute the title gives becomes one of its own.
func (c *compiler) replace(i int32, name string, v any) {
	r := c.rec(i)
	attrs := r.attrs()
	if k := findAttr(attrs, name); k >= 0 {
		attrs[k].val = v
		return
	}
	r.setAttrs(append(attrs, attr{name: name, val: v}))
}

// attrPos returns where attribute name of record i was set; ok is false
// when it was not.
func (c *compiler) attrPos(i int32, name string) (manifest.Pos, bool) {
	r := c.rec(i)
	if attrs := r.attrs(); attrs != nil {
		if k := findAttr(attrs, name); k >= 0 {
			return c.pos(attrs[k].pos), true
		}
	}
	return manifest.Pos{}, false
}

// attrPosOr is attrPos, or the zero Pos.
func (c *compiler) attrPosOr(i int32, name string) manifest.Pos {
	p, _ := c.attrPos(i, name)
	return p
}

// scopeID returns s's number in c.scopes, giving it one.
func (c *compiler) scopeID(s *scope) int32 {
	if s.id < 0 {
		s.id = int32(len(c.scopes))
		c.scopes = append(c.scopes, s)
	}
	return s.id
}

// scopeOf returns the scope record i was declared in, or nil.
func (c *compiler) scopeOf(i int32) *scope {
	if id := c.rec(i).scope; id >= 0 {
		return c.scopes[id]
	}
	return nil
}
