package catalog

import (
	"cmp"
	"slices"
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
// components are found with an iterative Tarjan. For each component the
// shortest cycle through its smallest ref is reported.
func (c *Catalog) CycleDetails() []Cycle {
	g := newCycleGraph(c)
	comps := g.tarjan()
	var out []Cycle
	for _, comp := range comps {
		if cy, ok := g.shortestCycle(comp); ok {
			out = append(out, cy)
		}
	}
	slices.SortStableFunc(out, func(a, b Cycle) int { return cmp.Compare(a.Path[0], b.Path[0]) })
	return out
}

type cycleGraph struct {
	names []string // display ref per node
	adj   [][]int
	// edges, in and out find the relationship behind an arc, which only a
	// cycle report needs: looked up then rather than indexed for every arc.
	edges   []Edge
	in, out map[string]int
}

func newCycleGraph(c *Catalog) *cycleGraph {
	n := len(c.Containers)*2 + len(c.Resources)
	in := make(map[string]int, n)  // ref -> node entered by incoming edges
	out := make(map[string]int, n) // ref -> node left by outgoing edges
	g := &cycleGraph{edges: c.Edges, in: in, out: out, names: make([]string, 0, n), adj: make([][]int, 0, n)}
	add := func(name string) int {
		g.names = append(g.names, name)
		g.adj = append(g.adj, nil)
		return len(g.names) - 1
	}
	for _, r := range c.Containers {
		ref := r.Ref()
		in[ref] = add(ref)
		out[ref] = add(ref)
	}
	for _, r := range c.Resources {
		if r.Virtual {
			continue
		}
		ref := r.Ref()
		n := add(ref)
		in[ref], out[ref] = n, n
	}
	hasContent := map[string]bool{}
	for _, e := range c.Edges {
		from, ok1 := out[e.From]
		to, ok2 := in[e.To]
		if !ok1 || !ok2 {
			continue
		}
		if e.Kind == Contain {
			// entry(container) -> entry(member); exit(member) -> exit(container)
			hasContent[e.From] = true
			g.adj[in[e.From]] = append(g.adj[in[e.From]], in[e.To])
			g.adj[out[e.To]] = append(g.adj[out[e.To]], out[e.From])
			continue
		}
		g.adj[from] = append(g.adj[from], to)
	}
	for _, r := range c.Containers {
		if ref := r.Ref(); !hasContent[ref] {
			g.adj[in[ref]] = append(g.adj[in[ref]], out[ref])
		}
	}
	return g
}

// tarjan returns the strongly connected components that are cycles (more
// than one node, or a node with an edge to itself), iteratively so that
// long chains cannot overflow the stack.
func (g *cycleGraph) tarjan() [][]int {
	n := len(g.adj)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	var comps [][]int
	next := 0
	type frame struct{ v, child int }
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		work := []frame{{v: root}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			f := &work[len(work)-1]
			if f.child < len(g.adj[f.v]) {
				w := g.adj[f.v][f.child]
				f.child++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, frame{v: w})
				} else if onStack[w] && index[w] < low[f.v] {
					low[f.v] = index[w]
				}
				continue
			}
			v := f.v
			work = work[:len(work)-1]
			if len(work) > 0 {
				p := work[len(work)-1].v
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] != index[v] {
				continue
			}
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 || g.selfLoop(v) {
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

func (g *cycleGraph) selfLoop(v int) bool {
	for _, w := range g.adj[v] {
		if w == v {
			return true
		}
	}
	return false
}

// shortestCycle finds, by breadth-first search inside the component, the
// shortest cycle through the node with the smallest ref.
func (g *cycleGraph) shortestCycle(comp []int) (Cycle, bool) {
	member := make(map[int]bool, len(comp))
	start := comp[0]
	for _, v := range comp {
		member[v] = true
		if g.names[v] < g.names[start] || g.names[v] == g.names[start] && v < start {
			start = v
		}
	}
	prev := map[int]int{start: -1}
	queue := []int{start}
	end := -1
	for len(queue) > 0 && end < 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.adj[v] {
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
	nodes := []int{start}
	for v := end; v != start; v = prev[v] {
		nodes = append(nodes, v)
	}
	// nodes = start, end, ..., successor of start; reverse the tail.
	tail := nodes[1:]
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	nodes = append(nodes, start)
	via := g.relations(nodes)
	var cy Cycle
	for i, v := range nodes {
		name := g.names[v]
		// A container's entry and exit print alike; do not repeat it.
		if i == 0 || name != cy.Path[len(cy.Path)-1] || i == len(nodes)-1 && len(cy.Path) == 1 {
			cy.Path = append(cy.Path, name)
		}
		if i > 0 {
			if e, ok := via[[2]int{nodes[i-1], v}]; ok {
				cy.Edges = append(cy.Edges, e)
			}
		}
	}
	return cy, true
}

// relations finds, for each consecutive pair of nodes on a path, the first
// relationship (not containment) that links them.
func (g *cycleGraph) relations(path []int) map[[2]int]Edge {
	want := make(map[[2]int]bool, len(path))
	for i := 1; i < len(path); i++ {
		want[[2]int{path[i-1], path[i]}] = true
	}
	via := make(map[[2]int]Edge, len(want))
	for _, e := range g.edges {
		if e.Kind == Contain {
			continue
		}
		from, ok1 := g.out[e.From]
		to, ok2 := g.in[e.To]
		k := [2]int{from, to}
		if !ok1 || !ok2 || !want[k] {
			continue
		}
		if _, seen := via[k]; !seen {
			via[k] = e
		}
	}
	return via
}
