package catalog

import (
	"cmp"
	"slices"

	"github.com/almanac-sh/almanac/internal/graph"
)

// Cycle is one dependency cycle: Path is a closed path of refs (the first
// ref repeated at the end), Edges the relationships along it, with the
// positions that made them. Containers on the path appear by their own ref,
// as in Puppet's messages.
type Cycle struct {
	Path  []string
	Edges []Edge
}

// Cycles returns the dependency cycles as closed paths of refs, e.g.
// [Exec[a] Exec[b] Exec[a]], sorted like Puppet sorts them.
func (c *Catalog) Cycles() [][]string {
	var out [][]string
	for _, cy := range c.CycleDetails() {
		out = append(out, cy.Path)
	}
	return out
}

// CycleDetails finds the dependency cycles the way an apply would meet them:
// each container is split into an entry and an exit node (everything it
// contains comes after its entry and before its exit), relationships leave
// a container's exit and enter a container's entry, and strongly connected
// components are found by graph.Components. For each component the
// shortest cycle through its smallest ref is reported.
//
// Whether there is a cycle at all is first decided on a smaller graph, in
// which a resource with no relationship is left out and its container's
// entry leads straight to its exit: that takes a cycle through such a
// resource to one through its container, so both graphs have cycles or
// neither has. Only a catalog with cycles pays for the whole graph.
func (c *Catalog) CycleDetails() []Cycle {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(newCycleGraph(c, true).cycles(true)) == 0 {
		return nil
	}
	g := newCycleGraph(c, false)
	comps := g.cycles(false)
	var out []Cycle
	for _, comp := range comps {
		if cy, ok := g.shortestCycle(comp); ok {
			out = append(out, cy)
		}
	}
	slices.SortStableFunc(out, func(a, b Cycle) int { return cmp.Compare(a.Path[0], b.Path[0]) })
	return out
}

// cycleGraph is the graph cycles are looked for in, with nodes and arcs by
// number: a few bytes a resource.
type cycleGraph struct {
	cat *Catalog
	// node is the node of each record, -1 for none (an unrealized
	// virtual resource, or one left out); a container is two nodes, its
	// entry node[i] and its exit node[i]+1.
	node []int32
	rec  []int32 // the record of each node
	// leaf marks the records left out of a smaller graph; nil for the
	// whole graph.
	leaf []bool
	// The arcs leaving node v are arcs[first[v]:first[v+1]], in the order
	// the edges behind them come in the catalog.
	first []int32
	arcs  []int32
	names map[int32]string // the refs of the nodes asked for, by node
}

// newCycleGraph builds the graph of c; small leaves out the resources no
// relationship touches.
func newCycleGraph(c *Catalog, small bool) *cycleGraph {
	n := c.recs.len()
	g := &cycleGraph{cat: c, node: make([]int32, n), names: map[int32]string{}}
	if small {
		touched := make([]bool, n)
		for _, e := range c.edges {
			if e.kind != ekContain {
				touched[e.from], touched[e.to] = true, true
			}
		}
		g.leaf = touched
		for i := range touched {
			touched[i] = !touched[i] && !c.recs.at(int32(i)).is(fCont)
		}
	}
	// Containers first, each as an entry and an exit, then resources.
	for i := range n {
		g.node[i] = -1
		if c.recs.at(i).is(fCont) {
			g.node[i] = int32(len(g.rec))
			g.rec = append(g.rec, i, i)
		}
	}
	for i := range n {
		if r := c.recs.at(i); !r.is(fCont) && !r.is(fVirtual) && !g.isLeaf(i) {
			g.node[i] = int32(len(g.rec))
			g.rec = append(g.rec, i)
		}
	}
	// Arcs are counted, then placed: the same walk twice.
	deg := make([]int32, len(g.rec)+1)
	g.walk(func(from, to int32) { deg[from]++ })
	g.first = make([]int32, len(g.rec)+1)
	for v := range len(g.rec) {
		g.first[v+1] = g.first[v] + deg[v]
	}
	g.arcs = make([]int32, g.first[len(g.rec)])
	next := deg[:len(g.rec)]
	copy(next, g.first)
	g.walk(func(from, to int32) {
		g.arcs[next[from]] = to
		next[from]++
	})
	return g
}

// isLeaf reports whether record i is left out of the graph.
func (g *cycleGraph) isLeaf(i int32) bool { return g.leaf != nil && g.leaf[i] }

// in is the node record i is entered by, out the one it is left by; -1
// when it is no node.
func (g *cycleGraph) in(i int32) int32 { return g.node[i] }

func (g *cycleGraph) out(i int32) int32 {
	if v := g.node[i]; v >= 0 && g.cat.recs.at(i).is(fCont) {
		return v + 1
	}
	return g.node[i]
}

// walk calls arc for every arc of the graph, in order: containment
// (entry of the container to entry of the member, exit of the member to
// exit of the container), each relationship from the exit of its source to
// the entry of its target, and, for containers holding nothing, entry to
// exit. A container holding a resource left out has its entry lead to its
// exit.
func (g *cycleGraph) walk(arc func(from, to int32)) {
	c := g.cat
	hasContent := make([]bool, len(g.rec))
	contain := func(from, to int32) {
		if g.out(from) < 0 {
			return
		}
		if g.isLeaf(to) {
			if !hasContent[g.in(from)] {
				hasContent[g.in(from)] = true
				arc(g.in(from), g.out(from))
			}
			return
		}
		if g.in(to) < 0 {
			return
		}
		hasContent[g.in(from)] = true
		arc(g.in(from), g.in(to))
		arc(g.out(to), g.out(from))
	}
	for i := range c.recs.len() {
		if r := c.recs.at(i); r.cont >= 0 && !r.is(fVirtual) {
			contain(r.cont, i)
		}
	}
	for _, e := range c.edges {
		if e.kind == ekContain {
			contain(e.from, e.to)
			continue
		}
		if from, to := g.out(e.from), g.in(e.to); from >= 0 && to >= 0 {
			arc(from, to)
		}
	}
	for i := range c.recs.len() {
		if c.recs.at(i).is(fCont) && !hasContent[g.in(i)] {
			arc(g.in(i), g.out(i))
		}
	}
}

// adj returns the nodes the arcs leaving v reach.
func (g *cycleGraph) adj(v int32) []int32 { return g.arcs[g.first[v]:g.first[v+1]] }

// name returns the ref of node v.
func (g *cycleGraph) name(v int32) string {
	if s, ok := g.names[v]; ok {
		return s
	}
	s := g.cat.refOf(g.rec[v])
	g.names[v] = s
	return s
}

// cycles returns the strongly connected components that are cycles (more
// than one node, or a node with an arc to itself), from graph.Components;
// with first set it stops at the first one.
func (g *cycleGraph) cycles(first bool) [][]int32 {
	var comps [][]int32
	for comp := range graph.Components(len(g.rec), g.adj) {
		if len(comp) > 1 || g.selfLoop(comp[0]) {
			comps = append(comps, slices.Clone(comp))
			if first {
				break
			}
		}
	}
	return comps
}

func (g *cycleGraph) selfLoop(v int32) bool {
	return slices.Contains(g.adj(v), v)
}

// shortestCycle finds, by breadth-first search inside the component, the
// shortest cycle through the node with the smallest ref.
func (g *cycleGraph) shortestCycle(comp []int32) (Cycle, bool) {
	member := make(map[int32]bool, len(comp))
	start := comp[0]
	for _, v := range comp {
		member[v] = true
		if g.name(v) < g.name(start) || g.name(v) == g.name(start) && v < start {
			start = v
		}
	}
	prev := map[int32]int32{start: -1}
	queue := []int32{start}
	end := int32(-1)
	for len(queue) > 0 && end < 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.adj(v) {
			if !member[w] {
				continue
			}
			if w == start {
				end = v
				break
			}
			if _, seen := prev[w]; !seen {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	if end < 0 {
		return Cycle{}, false
	}
	nodes := []int32{start}
	for v := end; v != start; v = prev[v] {
		nodes = append(nodes, v)
	}
	// nodes = start, end, ..., successor of start; reverse the tail.
	slices.Reverse(nodes[1:])
	nodes = append(nodes, start)
	via := g.relations(nodes)
	var cy Cycle
	for i, v := range nodes {
		name := g.name(v)
		// A container's entry and exit print alike; do not repeat it.
		if i == 0 || name != cy.Path[len(cy.Path)-1] || i == len(nodes)-1 && len(cy.Path) == 1 {
			cy.Path = append(cy.Path, name)
		}
		if i > 0 {
			if e, ok := via[[2]int32{nodes[i-1], v}]; ok {
				cy.Edges = append(cy.Edges, e)
			}
		}
	}
	return cy, true
}

// relations finds, for each consecutive pair of nodes on a path, the first
// relationship (not containment) that links them.
func (g *cycleGraph) relations(path []int32) map[[2]int32]Edge {
	want := make(map[[2]int32]bool, len(path))
	for i := 1; i < len(path); i++ {
		want[[2]int32{path[i-1], path[i]}] = true
	}
	via := make(map[[2]int32]Edge, len(want))
	for _, e := range g.cat.edges {
		if e.kind == ekContain {
			continue
		}
		from, to := g.out(e.from), g.in(e.to)
		k := [2]int32{from, to}
		if from < 0 || to < 0 || !want[k] {
			continue
		}
		if _, seen := via[k]; !seen {
			via[k] = g.cat.edge(e, g.cat.refOf)
		}
	}
	return via
}
