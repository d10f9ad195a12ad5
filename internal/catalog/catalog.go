package catalog

import (
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

// Catalog is the result of compiling manifests.
type Catalog struct {
	// Resources are the managed resources (every type but stage, class and
	// defined types), in evaluation order.
	Resources []*Resource
	// Containers are Stage[main], Class[Main], classes and defined-type
	// instances, in evaluation order.
	Containers []*Resource
	// Edges are all relationships: containment first, then explicit
	// relationships in resource order, then automatic ones.
	Edges []Edge

	index map[rkey]*Resource
}

// Lookup finds a resource or container by reference ("Exec[a]",
// "Class[web]", "File['/tmp/x']"), also through alias; nil if absent.
func (c *Catalog) Lookup(ref string) *Resource {
	r, ok := parseRefString(ref)
	if !ok {
		return nil
	}
	return c.index[refKey(r.Type, r.Title)]
}

// Applied returns the resources an apply acts on: Resources without the
// unrealized virtual ones.
func (c *Catalog) Applied() []*Resource {
	out := make([]*Resource, 0, len(c.Resources))
	for _, r := range c.Resources {
		if !r.Virtual {
			out = append(out, r)
		}
	}
	return out
}

// Relationships returns the edges that order resources (every kind but
// Contain).
func (c *Catalog) Relationships() []Edge {
	out := make([]Edge, 0, len(c.Edges))
	for _, e := range c.Edges {
		if e.Kind != Contain {
			out = append(out, e)
		}
	}
	return out
}
