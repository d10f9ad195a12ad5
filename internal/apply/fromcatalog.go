package apply

import (
	"github.com/almanac-sh/almanac/internal/catalog"
)

// FromCatalog turns a compiled catalog into what a run applies. Unrealized
// virtual resources are left out. Containers are placed just before the
// first resource they (transitively) contain, which is where Puppet inserts
// a class: contents are evaluated right after their class. Containers
// holding no resource go last.
func FromCatalog(c *catalog.Catalog) *Catalog {
	out := &Catalog{}
	cResources, cContainers, cEdges := c.Resources(), c.Containers(), c.Edges()
	containers := make(map[string]*catalog.Resource, len(cContainers))
	for _, k := range cContainers {
		containers[k.Ref()] = k
	}
	parent := make(map[string]string)
	for _, k := range cContainers {
		if k.Container != "" {
			parent[k.Ref()] = k.Container
		}
	}
	placed := make(map[string]bool)
	convert := func(r *catalog.Resource, isContainer bool) *Resource {
		pos := ""
		if r.Pos.IsValid() {
			pos = r.Pos.String()
		}
		return &Resource{Type: r.Type, Title: r.Title, Params: r.Params, Pos: pos, Container: r.Container, IsContainer: isContainer, ref: r.Ref()}
	}
	var place func(ref string)
	place = func(ref string) {
		if ref == "" || placed[ref] {
			return
		}
		k, ok := containers[ref]
		if !ok {
			return
		}
		placed[ref] = true
		place(parent[ref])
		out.Resources = append(out.Resources, convert(k, true))
	}
	for _, r := range cResources {
		if r.Virtual {
			continue
		}
		place(r.Container)
		out.Resources = append(out.Resources, convert(r, false))
	}
	for _, k := range cContainers {
		place(k.Ref())
	}
	skip := make(map[string]bool)
	for _, r := range cResources {
		if r.Virtual {
			skip[r.Ref()] = true
		}
	}
	// Puppet's contain first includes the class, which puts it in
	// Stage[main] as well as in the class that contains it; the stage then
	// also waits for (and hears refreshes from) the contained class.
	if _, ok := containers["Stage[main]"]; ok {
		for _, k := range cContainers {
			if k.Type == "class" && k.Container != "" && k.Container != "Stage[main]" {
				out.Edges = append(out.Edges, Edge{From: "Stage[main]", To: k.Ref(), Kind: Contain})
			}
		}
	}
	// Puppet adds the chaining arrows' edges to its graph before the
	// relationship metaparameters' (verified with Puppet 7.23: a resource
	// that is the source of both schedules the arrow's target first), and
	// the order of a resource's edges is the order its refreshes are
	// scheduled in.
	edges := make([]catalog.Edge, 0, len(cEdges))
	for pass := 0; pass < 2; pass++ {
		for _, e := range cEdges {
			if isArrow(e.Via) == (pass == 0) {
				edges = append(edges, e)
			}
		}
	}
	for _, e := range edges {
		if skip[e.From] || skip[e.To] {
			continue
		}
		pos := ""
		if e.Pos.IsValid() {
			pos = e.Pos.String()
		}
		var kind EdgeKind
		switch e.Kind {
		case catalog.Notify:
			kind = Notify
		case catalog.Contain:
			kind = Contain
		case catalog.Auto:
			kind = Auto
		default:
			kind = Before
		}
		out.Edges = append(out.Edges, Edge{From: e.From, To: e.To, Kind: kind, Pos: pos})
	}
	return out
}

func isArrow(via string) bool {
	switch via {
	case "->", "~>", "<-", "<~":
		return true
	}
	return false
}
