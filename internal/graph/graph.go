// Package graph provides the directed graph behind an apply run: nodes keyed
// by any comparable value (resource references, integers), strongly connected
// components found without recursion, the cycle paths Puppet prints, a
// Kahn traversal whose ready set is ordered by a caller-chosen priority, and
// Graphviz DOT output.
package graph

// Graph is a directed multigraph. Nodes are identified both by their key and by
// a dense index (0..Len()-1) assigned in insertion order; every method that
// takes or returns a node uses the index. Parallel edges are kept, in the
// order they were added, because an apply run counts each one as a separate
// path for refresh events.
type Graph[K comparable] struct {
	keys  []K
	index map[K]int
	out   [][]int
	in    [][]int
	edges int
}

// New returns an empty graph.
func New[K comparable]() *Graph[K] {
	return &Graph[K]{index: make(map[K]int)}
}

// AddNode adds k if it is not present and returns its index.
func (g *Graph[K]) AddNode(k K) int {
	if i, ok := g.index[k]; ok {
		return i
	}
	i := len(g.keys)
	g.keys = append(g.keys, k)
	g.index[k] = i
	g.out = append(g.out, nil)
	g.in = append(g.in, nil)
	return i
}

// AddEdge adds an edge from -> to (to depends on from), adding either node if
// needed, and returns the two indexes.
func (g *Graph[K]) AddEdge(from, to K) (int, int) {
	f, t := g.AddNode(from), g.AddNode(to)
	g.Connect(f, t)
	return f, t
}

// Connect adds an edge between two existing nodes given by index.
func (g *Graph[K]) Connect(from, to int) {
	g.out[from] = append(g.out[from], to)
	g.in[to] = append(g.in[to], from)
	g.edges++
}

// Len returns the number of nodes.
func (g *Graph[K]) Len() int { return len(g.keys) }

// EdgeCount returns the number of edges, parallel ones included.
func (g *Graph[K]) EdgeCount() int { return g.edges }

// Key returns the key of node i.
func (g *Graph[K]) Key(i int) K { return g.keys[i] }

// Index returns the index of key k.
func (g *Graph[K]) Index(k K) (int, bool) {
	i, ok := g.index[k]
	return i, ok
}

// Out returns the targets of i's outgoing edges in insertion order. The slice
// belongs to the graph and must not be modified.
func (g *Graph[K]) Out(i int) []int { return g.out[i] }

// In returns the sources of i's incoming edges in insertion order. The slice
// belongs to the graph and must not be modified.
func (g *Graph[K]) In(i int) []int { return g.in[i] }
