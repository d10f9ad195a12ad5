package graph

import (
	"container/heap"
	"errors"
)

// State is what became of a node during a traversal.
type State uint8

// The states a traversal callback may report.
const (
	Pending State = iota // not visited yet
	Done                 // visited and succeeded
	Failed               // visited and failed
	Skipped              // visited but not acted on
)

func (s State) String() string {
	switch s {
	case Done:
		return "done"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	}
	return "pending"
}

// ErrCycle is returned by Order when some nodes can never become ready.
var ErrCycle = errors.New("graph has a cycle")

// Walk is one Kahn traversal of a graph. A node becomes ready once every
// node it depends on has been finished; among ready nodes the one that is
// least by the walk's ordering comes out first. That is Puppet's traversal: a
// node unblocked late still jumps ahead of every ready node that sorts after
// it.
type Walk[K comparable] struct {
	g        *Graph[K]
	blockers []int32
	state    []State
	ready    readyHeap
	emitted  int
}

// NewWalk starts a traversal of g. less orders ready nodes (by index); it must
// be a strict weak order, and ties are broken by the lower index.
func (g *Graph[K]) NewWalk(less func(a, b int) bool) *Walk[K] {
	w := &Walk[K]{
		g:        g,
		blockers: make([]int32, len(g.keys)),
		state:    make([]State, len(g.keys)),
		ready:    readyHeap{less: less},
	}
	for v := range g.keys {
		w.blockers[v] = int32(len(g.in[v]))
		if w.blockers[v] == 0 {
			w.ready.items = append(w.ready.items, v)
		}
	}
	heap.Init(&w.ready)
	return w
}

// Next returns the next ready node, or false when none is ready (all nodes
// visited, or the rest are blocked by a cycle). The node must be given back to
// Finish before its dependents can become ready.
func (w *Walk[K]) Next() (int, bool) {
	if w.ready.Len() == 0 {
		return 0, false
	}
	w.emitted++
	return heap.Pop(&w.ready).(int), true
}

// Finish records the state of v (Done, Failed or Skipped) and releases the
// nodes that depend on it.
func (w *Walk[K]) Finish(v int, s State) {
	w.state[v] = s
	for _, t := range w.g.out[v] {
		w.blockers[t]--
		if w.blockers[t] == 0 {
			heap.Push(&w.ready, t)
		}
	}
}

// State returns what was recorded for v by Finish (Pending before that).
func (w *Walk[K]) State(v int) State { return w.state[v] }

// Complete reports whether every node has been handed out by Next.
func (w *Walk[K]) Complete() bool { return w.emitted == len(w.g.keys) }

// Traverse visits every reachable node in traversal order, calling visit and
// recording the state it returns. It returns the state of every node; nodes
// left Pending are blocked by a cycle.
func (g *Graph[K]) Traverse(less func(a, b int) bool, visit func(v int, w *Walk[K]) State) []State {
	w := g.NewWalk(less)
	for v, ok := w.Next(); ok; v, ok = w.Next() {
		w.Finish(v, visit(v, w))
	}
	return w.state
}

// Order returns the traversal order of all nodes, or ErrCycle if some nodes
// can never be reached because they sit on or behind a cycle.
func (g *Graph[K]) Order(less func(a, b int) bool) ([]int, error) {
	order := make([]int, 0, len(g.keys))
	w := g.NewWalk(less)
	for v, ok := w.Next(); ok; v, ok = w.Next() {
		order = append(order, v)
		w.Finish(v, Done)
	}
	if len(order) != len(g.keys) {
		return order, ErrCycle
	}
	return order, nil
}

type readyHeap struct {
	items []int
	less  func(a, b int) bool
}

func (h *readyHeap) Len() int { return len(h.items) }
func (h *readyHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if h.less != nil {
		if h.less(a, b) {
			return true
		}
		if h.less(b, a) {
			return false
		}
	}
	return a < b
}
func (h *readyHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *readyHeap) Push(x any)    { h.items = append(h.items, x.(int)) }
func (h *readyHeap) Pop() any {
	n := len(h.items) - 1
	v := h.items[n]
	h.items = h.items[:n]
	return v
}
