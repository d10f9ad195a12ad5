package catalog

import (
	"fmt"
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

// res is the compiler's view of a resource or container.
type res struct {
	r         *Resource
	attrs     map[string]any // evaluated attributes, metaparameters included
	attrPos   attrPositions
	scope     *scope // declaring scope (for defaults)
	container *res
	isCont    bool
	virtual   bool // declared with @ and not (yet) realized
	define    *manifest.DefineDef
	done      bool // a define instance's body has been evaluated
	included  bool // a class declared include-style, which Puppet gives no position
}

type defaultAttr struct {
	val any
	pos manifest.Pos
}

// scope holds variables and resource defaults. parent is the lexical parent
// for variable lookup; dyn is the dynamic parent for resource defaults.
type scope struct {
	vars      map[string]any
	parent    *scope
	dyn       *scope
	defaults  map[string]map[string]defaultAttr
	container *res
	matches   []string
	tags      []string // tags inherited by resources declared here
}

func newScope(parent, dyn *scope, container *res) *scope {
	s := &scope{vars: map[string]any{}, parent: parent, dyn: dyn, container: container}
	if dyn != nil {
		s.tags = dyn.tags
	}
	return s
}

type compiler struct {
	errs     manifest.ErrorList
	classes  map[string]*manifest.ClassDef
	defines  map[string]*manifest.DefineDef
	all      []*res
	byKey    map[rkey]*res
	aliases  map[rkey]*res
	byType   map[string][]*res
	top      *scope
	stage    *res
	main     *res
	classSc  map[string]*scope
	pending  []*res // define instances to evaluate
	colls    []*collector
	chains   []*chain
	realizes []realizeReq
	extra    []Edge // require/contain function edges
	opts     Options
	nodes    nodeDefs
	depth    int // current nesting of eval
}

type realizeReq struct {
	ref refV
	pos manifest.Pos
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
	c := &compiler{
		opts:    opts,
		classes: map[string]*manifest.ClassDef{},
		defines: map[string]*manifest.DefineDef{},
		byKey:   map[rkey]*res{},
		aliases: map[rkey]*res{},
		byType:  map[string][]*res{},
		classSc: map[string]*scope{},
	}
	for _, f := range files {
		c.hoist(f.Body)
	}
	c.stage = c.newRes("stage", "main", manifest.Pos{}, nil, true)
	c.main = c.newRes("class", "main", manifest.Pos{}, c.stage, true)
	c.top = newScope(nil, nil, c.main)
	c.classSc["main"] = c.top
	c.setFacts()
	for _, f := range files {
		if len(files) > 0 && f != nil {
			if !c.main.r.Pos.IsValid() {
				c.main.r.Pos = manifest.Pos{File: f.Name, Line: 1, Col: 1}
				c.stage.r.Pos = c.main.r.Pos
			}
			c.evalBlock(c.top, f.Body)
		}
	}
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

func (c *compiler) newRes(typ, title string, pos manifest.Pos, container *res, isContainer bool) *res {
	r := &res{
		r:         &Resource{Type: typ, Title: title, Pos: pos, ref: formatRef(typ, title)},
		attrs:     map[string]any{},
		container: container,
		isCont:    isContainer,
	}
	if container != nil {
		r.r.Container = container.r.Ref()
	}
	c.all = append(c.all, r)
	key := refKey(typ, title)
	c.byKey[key] = r
	c.byType[typ] = append(c.byType[typ], r)
	if len(c.all) > maxResources {
		c.fail(pos, "too many resources (more than %d): is a defined type declaring itself?", maxResources)
	}
	return r
}
