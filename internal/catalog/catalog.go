package catalog

import (
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// EdgeKind says what a relationship does.
type EdgeKind string

// Edge kinds.
const (
	// Before orders From before To (before, require, ->, <-, the require
	// function).
	Before EdgeKind = "before"
	// Notify orders From before To and refreshes To when From changes
	// (notify, subscribe, ~>, <~).
	Notify EdgeKind = "notify"
	// Contain links a container (stage, class, defined-type instance) to
	// what it contains.
	Contain EdgeKind = "contain"
	// Auto is an automatic ordering relationship (a file after its managed
	// parent directory, an exec after its managed cwd). It never refreshes.
	Auto EdgeKind = "auto"
)

// Edge is one relationship between two resources or containers, by ref.
type Edge struct {
	From, To string
	Kind     EdgeKind
	// Via names what made the edge: a metaparameter (before, require,
	// notify, subscribe), an arrow (->, ~>, <-, <~), "require function",
	// "contain", "autorequire".
	Via string
	Pos manifest.Pos
}

// Resource is one declared resource or container.
type Resource struct {
	// Type is lower-case: exec, file, service, notify, schedule, job, or for
	// containers stage, class or the name of a defined type.
	Type string
	// Title as declared (class titles lower-case, without a leading ::).
	Title string
	// Params holds the attributes after defaults, as string, int64, float64,
	// bool, nil, []any and map[string]any; references are "Type[title]"
	// strings. The relationship metaparameters (before, require, notify,
	// subscribe) are not here but in Catalog.Edges, and tag is in Tags.
	// The namevar (command, path, name) is filled from the title if unset.
	Params map[string]any
	// Pos is where the resource (its title) was declared.
	Pos manifest.Pos
	// Tags are the resource's tags: its type, its title when that is a valid
	// tag, the names of its enclosing classes and defined types, and every
	// tag metaparameter value, lower-case, without duplicates.
	Tags []string
	// Container is the ref of the innermost container: "Class[Main]",
	// "Class[Web]", "App::Site[x]", or "Stage[main]" for classes.
	Container string
	// Virtual marks a resource declared with @type and never realized: it is
	// not part of what gets applied, and references to it are errors.
	Virtual bool

	ref string // Ref(), computed once at declaration
}

// Ref returns the resource's reference, e.g. Exec[backup] or Class[Web].
func (r *Resource) Ref() string {
	if r.ref != "" {
		return r.ref
	}
	return formatRef(r.Type, r.Title)
}

// Detach returns a deep copy of r that shares no memory with the catalog
// or with the manifest text it was compiled from: its strings point into
// that text, and one string kept would keep the whole text in memory. It
// is for what outlives the catalog (a daemon's gates and schedules).
func (r *Resource) Detach() *Resource {
	d := &Resource{Type: strings.Clone(r.Type), Title: strings.Clone(r.Title), Pos: r.Pos,
		Container: strings.Clone(r.Container), Virtual: r.Virtual, ref: strings.Clone(r.ref)}
	d.Pos.File = strings.Clone(r.Pos.File)
	if r.Tags != nil {
		d.Tags = make([]string, len(r.Tags))
		for i, t := range r.Tags {
			d.Tags[i] = strings.Clone(t)
		}
	}
	if r.Params != nil {
		d.Params = detachValue(r.Params).(map[string]any)
	}
	return d
}

// detachValue deep-copies a parameter value (see Resource.Params).
func detachValue(v any) any {
	switch v := v.(type) {
	case string:
		return strings.Clone(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = detachValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[strings.Clone(k)] = detachValue(e)
		}
		return out
	}
	return v // int64, float64, bool, nil
}

// Catalog is the result of compiling manifests. It keeps its resources in
// a compact form; the Resource values and Edge lists its methods return
// are built when first asked for and then kept, so that a caller that only
// needs a few of them (or counts) never has them all in memory. A Catalog
// is safe for concurrent use.
type Catalog struct {
	recs     recStore
	types    []string // type names by number
	namevars []string // the namevar of each type, "" for containers
	files    []*manifest.Source
	tagLists [][]string
	// edges are every relationship but the containment of each record
	// in its container, which the records imply: the relationship
	// metaparameters in resource order, then chains, then the require
	// and contain functions', then automatic ones.
	edges   []edge
	index   refIndex
	aliases map[rkey]int32

	mu         sync.Mutex
	mat        []*Resource // record number -> its Resource, once built
	resources  []*Resource
	containers []*Resource
	allEdges   []Edge
}

// Resources returns the managed resources (every type but stage, class,
// node and defined types), in evaluation order. The slice is shared: do
// not modify it.
func (c *Catalog) Resources() []*Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.split()
	return c.resources
}

// Containers returns Stage[main], Class[Main], classes, nodes and
// defined-type instances, in evaluation order. The slice is shared: do not
// modify it.
func (c *Catalog) Containers() []*Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.split()
	return c.containers
}

// Edges returns all relationships: containment first, then explicit
// relationships in resource order, then automatic ones. The slice is
// shared: do not modify it.
func (c *Catalog) Edges() []Edge {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.allEdges == nil {
		c.allEdges = c.materializeEdges()
	}
	return c.allEdges
}

// Lookup finds a resource or container by reference ("Exec[a]",
// "Class[web]", "File['/tmp/x']"), also through alias; nil if absent.
func (c *Catalog) Lookup(ref string) *Resource {
	r, ok := parseRefString(ref)
	if !ok {
		return nil
	}
	i := c.find(r)
	if i < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resource(i)
}

// Applied returns the resources an apply acts on: Resources without the
// unrealized virtual ones; with types given, only the resources of those
// types (lower case, e.g. "job").
func (c *Catalog) Applied(types ...string) []*Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Resource
	if len(types) == 0 {
		c.split()
		out = make([]*Resource, 0, len(c.resources))
		for _, r := range c.resources {
			if !r.Virtual {
				out = append(out, r)
			}
		}
		return out
	}
	want := c.typeSet(types)
	for i := range c.recs.len() {
		if r := c.recs.at(i); want[r.typ] && !r.is(fVirtual) && !c.isContainer(r) {
			out = append(out, c.resource(i))
		}
	}
	return out
}

// EachApplied yields the resources Applied(types...) returns, one at a
// time, building each afresh without keeping it in the catalog (unless it
// was built before): a caller that keeps only what it needs of each holds
// memory proportional to the compact catalog, not to its Resource values.
// The catalog is not locked while yield runs.
func (c *Catalog) EachApplied(types ...string) iter.Seq[*Resource] {
	return func(yield func(*Resource) bool) {
		want := c.typeSet(types)
		for i := range c.recs.len() {
			c.mu.Lock()
			var r *Resource
			if rc := c.recs.at(i); (len(types) == 0 || want[rc.typ]) && !rc.is(fVirtual) && !c.isContainer(rc) {
				r = c.transient(i)
			}
			c.mu.Unlock()
			if r != nil && !yield(r) {
				return
			}
		}
	}
}

// NumAppliedOf is len(c.Applied(types...)), counted without building the
// resources.
func (c *Catalog) NumAppliedOf(types ...string) int {
	want := c.typeSet(types)
	n := 0
	for i := range c.recs.len() {
		if rc := c.recs.at(i); want[rc.typ] && !rc.is(fVirtual) && !c.isContainer(rc) {
			n++
		}
	}
	return n
}

// NumApplied is len(c.Applied()), counted without building the resources.
func (c *Catalog) NumApplied() int {
	n := 0
	for i := range c.recs.len() {
		if r := c.recs.at(i); !r.is(fVirtual) && !c.isContainer(r) {
			n++
		}
	}
	return n
}

// Relationships returns the edges that order resources (every kind but
// Contain).
func (c *Catalog) Relationships() []Edge {
	out := make([]Edge, 0, len(c.edges))
	for _, e := range c.Edges() {
		if e.Kind != Contain {
			out = append(out, e)
		}
	}
	return out
}

// NumRelationships is len(c.Relationships()), counted without building
// the edges.
func (c *Catalog) NumRelationships() int {
	n := 0
	for _, e := range c.edges {
		if e.kind != ekContain {
			n++
		}
	}
	return n
}

// RelationshipsWith returns the relationships (as Relationships) with at
// least one end of one of the types (lower case, e.g. "job"), building
// only those.
func (c *Catalog) RelationshipsWith(types ...string) []Edge {
	c.mu.Lock()
	defer c.mu.Unlock()
	want := c.typeSet(types)
	var out []Edge
	for _, e := range c.edges {
		if e.kind != ekContain && (want[c.recs.at(e.from).typ] || want[c.recs.at(e.to).typ]) {
			out = append(out, c.edge(e, c.refOf))
		}
	}
	return out
}

// typeSet returns the type numbers of types, as a set.
func (c *Catalog) typeSet(types []string) map[uint16]bool {
	want := map[uint16]bool{}
	for i, t := range c.types {
		if slices.Contains(types, t) {
			want[uint16(i)] = true
		}
	}
	return want
}

// find looks a reference up, through aliases too; -1 when absent.
func (c *Catalog) find(ref refV) int32 {
	typ := strings.ToLower(ref.Type)
	for t, name := range c.types {
		if name == typ {
			if i := c.index.find(&c.recs, uint16(t), keyTitle(typ, ref.Title)); i >= 0 {
				return i
			}
			break
		}
	}
	if i, ok := c.aliases[refKey(ref.Type, ref.Title)]; ok {
		return i
	}
	return -1
}

// isContainer reports whether record r is listed among the containers
// (stage, classes and nodes are declared as containers, like defined-type
// instances).
func (c *Catalog) isContainer(r *rec) bool { return r.is(fCont) }
