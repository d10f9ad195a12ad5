package graph

import (
	"iter"
	"slices"
)

// SCCs returns the strongly connected components of g (see [Components]).
// Components come out in reverse topological order; each lists its nodes
// in the order Tarjan popped them.
func (g *Graph[K]) SCCs() [][]int {
	var comps [][]int
	for c := range Components(len(g.keys), g.Out) {
		comps = append(comps, slices.Clone(c))
	}
	return comps
}

// Components yields the strongly connected components of the graph whose
// nodes are 0 to n-1 and whose arcs leaving node v go to succ(v). It is
// almanac's one cycle finder: [Graph] uses it, and so does the catalog on
// its own compact graph. Tarjan's algorithm runs with an explicit stack,
// so that a chain of any length cannot overflow the goroutine stack.
// Components come out in reverse topological order; each lists its nodes
// in the order Tarjan popped them. The slice yielded is reused for later
// components: a caller that keeps one copies it. Stopping the iteration
// early stops the search, so a caller that only asks whether there is a
// cycle pays for no more of the graph than it has to.
func Components[N ~int | ~int32](n int, succ func(v N) []N) iter.Seq[[]N] {
	return func(yield func([]N) bool) {
		const unvisited = -1
		index := make([]N, n)
		low := make([]N, n)
		onStack := make([]bool, n)
		for i := range index {
			index[i] = unvisited
		}
		var stack []N // Tarjan's node stack
		type frame struct {
			node N
			next int
		}
		var call []frame // the simulated recursion
		var counter N
		for root := N(0); int(root) < n; root++ {
			if index[root] != unvisited {
				continue
			}
			call = append(call, frame{node: root})
			index[root], low[root] = counter, counter
			counter++
			stack = append(stack, root)
			onStack[root] = true
			for len(call) > 0 {
				top := &call[len(call)-1]
				v := top.node
				if out := succ(v); top.next < len(out) {
					w := out[top.next]
					top.next++
					if index[w] == unvisited {
						index[w], low[w] = counter, counter
						counter++
						stack = append(stack, w)
						onStack[w] = true
						call = append(call, frame{node: w})
					} else if onStack[w] && index[w] < low[v] {
						low[v] = index[w]
					}
					continue
				}
				// All successors done: v is finished.
				call = call[:len(call)-1]
				if len(call) > 0 {
					p := call[len(call)-1].node
					if low[v] < low[p] {
						low[p] = low[v]
					}
				}
				if low[v] != index[v] {
					continue
				}
				// v is the root of a component: the stack from v up.
				i := len(stack) - 1
				for stack[i] != v {
					i--
				}
				comp := stack[i:]
				for _, w := range comp {
					onStack[w] = false
				}
				slices.Reverse(comp) // popped order
				stack = stack[:i]
				if !yield(comp) {
					return
				}
			}
		}
	}
}

// Cycles returns the components of g that are cycles: those with more than
// one node, and single nodes with an edge to themselves. As Puppet does, the
// nodes of each component are sorted with cmp on their keys and the
// components are sorted by comparing their sorted node lists.
func (g *Graph[K]) Cycles(cmp func(a, b K) int) [][]int {
	var cycles [][]int
	for _, c := range g.SCCs() {
		if len(c) == 1 && !g.hasSelfLoop(c[0]) {
			continue
		}
		slices.SortFunc(c, func(a, b int) int { return cmp(g.keys[a], g.keys[b]) })
		cycles = append(cycles, c)
	}
	slices.SortStableFunc(cycles, func(a, b []int) int {
		for k := 0; k < len(a) && k < len(b); k++ {
			if c := cmp(g.keys[a[k]], g.keys[b[k]]); c != 0 {
				return c
			}
		}
		return len(a) - len(b)
	})
	return cycles
}

func (g *Graph[K]) hasSelfLoop(v int) bool {
	for _, w := range g.out[v] {
		if w == v {
			return true
		}
	}
	return false
}

// PathsInCycle returns up to max paths through the component comp, found the
// way Puppet finds them: a breadth-first search from comp[0] over edges that
// stay inside comp, where a path is complete as soon as its last node already
// occurs earlier in it (not necessarily at the start). Shorter paths come
// first. Each path lists node indexes, its repeated node included at the end.
func (g *Graph[K]) PathsInCycle(comp []int, max int) [][]int {
	if len(comp) == 0 || max < 1 {
		return nil
	}
	member := make(map[int]bool, len(comp))
	for _, v := range comp {
		member[v] = true
	}
	adj := make(map[int][]int, len(comp))
	for _, v := range comp {
		seen := make(map[int]bool)
		for _, w := range g.out[v] {
			if member[w] && !seen[w] {
				seen[w] = true
				adj[v] = append(adj[v], w)
			}
		}
	}
	// The BFS tree: paths share prefixes through parent links, so memory
	// grows with the number of paths explored, not with their total length.
	type treeNode struct{ vertex, parent, depth int }
	tree := []treeNode{{vertex: comp[0], parent: -1}}
	// onPath counts the occurrences of each vertex on the path to cur; moving
	// between consecutive BFS nodes only walks to their common ancestor, so a
	// long simple cycle costs linear time.
	onPath := make(map[int]int, len(comp))
	cur := -1
	moveTo := func(t int) {
		a, b := cur, t
		var add []int
		depth := func(x int) int {
			if x < 0 {
				return -1
			}
			return tree[x].depth
		}
		for depth(a) > depth(b) {
			onPath[tree[a].vertex]--
			a = tree[a].parent
		}
		for depth(b) > depth(a) {
			add = append(add, b)
			b = tree[b].parent
		}
		for a != b {
			onPath[tree[a].vertex]--
			a = tree[a].parent
			add = append(add, b)
			b = tree[b].parent
		}
		for _, x := range add {
			onPath[tree[x].vertex]++
		}
		cur = t
	}
	var found [][]int
	for head := 0; head < len(tree); head++ {
		moveTo(head)
		n := tree[head]
		if onPath[n.vertex] > 1 {
			path := make([]int, n.depth+1)
			for x := head; x >= 0; x = tree[x].parent {
				path[tree[x].depth] = tree[x].vertex
			}
			found = append(found, path)
			if len(found) >= max {
				break
			}
			continue
		}
		for _, w := range adj[n.vertex] {
			tree = append(tree, treeNode{vertex: w, parent: head, depth: n.depth + 1})
		}
	}
	return found
}
