package graph

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func build(edges ...string) *Graph[string] {
	g := New[string]()
	for _, e := range edges {
		f, t, _ := strings.Cut(e, ">")
		g.AddEdge(f, t)
	}
	return g
}

func keys(g *Graph[string], vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = g.Key(v)
	}
	return strings.Join(s, " ")
}

// The cases of Puppet's simple_graph_spec for find_cycles_in_graph and
// paths_in_cycle.
func TestCyclesPuppetCases(t *testing.T) {
	tests := []struct {
		name   string
		edges  []string
		cycles []string // sorted component members
		paths  []string // first component, up to 100 paths
	}{
		{"self loop", []string{"a>a"}, []string{"a"}, []string{"a a"}},
		{"two", []string{"a>b", "b>a"}, []string{"a b"}, []string{"a b a"}},
		{"three", []string{"a>b", "b>c", "c>a"}, []string{"a b c"}, []string{"a b c a"}},
		{"tail into cycle", []string{"a>b", "b>a", "c>a", "d>c"}, []string{"a b"}, []string{"a b a"}},
		{"no cycle", []string{"a>b", "b>e", "c>a", "d>c"}, nil, nil},
		{"cycle with exit", []string{"a>b", "b>a", "b>c"}, []string{"a b"}, []string{"a b a"}},
		{"two disjoint", []string{"a>b", "b>a", "c>d", "d>c"}, []string{"a b", "c d"}, []string{"a b a"}},
		{"shortest first", []string{"a>b", "b>c", "c>a", "b>a"}, []string{"a b c"}, []string{"a b a", "a b c a"}},
		{"two spokes", []string{"a>b1", "b1>a", "a>b2", "b2>a"}, []string{"a b1 b2"}, []string{"a b1 a", "a b2 a"}},
		{"repeat not at start", []string{"a>b", "b>c", "c>b", "c>a"}, []string{"a b c"}, []string{"a b c b", "a b c a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(tt.edges...)
			cycles := g.Cycles(strings.Compare)
			var got []string
			for _, c := range cycles {
				got = append(got, keys(g, c))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.cycles) {
				t.Fatalf("cycles = %q, want %q", got, tt.cycles)
			}
			if len(cycles) == 0 {
				return
			}
			var paths []string
			for _, p := range g.PathsInCycle(cycles[0], 100) {
				paths = append(paths, keys(g, p))
			}
			if fmt.Sprint(paths) != fmt.Sprint(tt.paths) {
				t.Fatalf("paths = %q, want %q", paths, tt.paths)
			}
		})
	}
}

func TestPathsInCycleLimit(t *testing.T) {
	g := New[string]()
	for i := range 20 {
		b := fmt.Sprintf("b%02d", i)
		g.AddEdge("a", b)
		g.AddEdge(b, "a")
	}
	c := g.Cycles(strings.Compare)
	if len(c) != 1 || len(c[0]) != 21 {
		t.Fatalf("cycles = %v", c)
	}
	for _, n := range []int{1, 5, 20, 100} {
		if got, want := len(g.PathsInCycle(c[0], n)), min(n, 20); got != want {
			t.Errorf("PathsInCycle(max %d) gave %d paths, want %d", n, got, want)
		}
	}
	if g.PathsInCycle(c[0], 0) != nil {
		t.Error("max 0 should give no paths")
	}
}

func TestLongChainNoOverflow(t *testing.T) {
	for _, n := range []int{3000, 100_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g := New[int]()
			for i := 0; i+1 < n; i++ {
				g.AddEdge(i, i+1)
			}
			if c := g.Cycles(func(a, b int) int { return a - b }); len(c) != 0 {
				t.Fatalf("chain has %d cycles", len(c))
			}
			// Close the chain: one component holding every node.
			g.AddEdge(n-1, 0)
			c := g.Cycles(func(a, b int) int { return a - b })
			if len(c) != 1 || len(c[0]) != n {
				t.Fatalf("closed chain: %d cycles", len(c))
			}
			p := g.PathsInCycle(c[0], 1)
			if len(p) != 1 || len(p[0]) != n+1 {
				t.Fatalf("path length %d, want %d", len(p[0]), n+1)
			}
		})
	}
}

// Puppet's traversal example: z_first is declared first but must follow
// m_last; once m_last is done it jumps ahead of nothing else ready.
func TestOrderPriority(t *testing.T) {
	g := New[string]()
	for _, n := range []string{"z_first", "a_second", "foo_1", "foo_2", "m_last"} {
		g.AddNode(n)
	}
	g.AddEdge("m_last", "z_first")
	order, err := g.Order(nil) // index order = declaration order
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(g, order); got != "a_second foo_1 foo_2 m_last z_first" {
		t.Fatalf("order = %s", got)
	}
	// An unblocked node jumps ahead of later-declared ready ones.
	g2 := build("b>a")
	g2.AddNode("c")
	order, _ = g2.Order(func(x, y int) bool { return g2.Key(x) < g2.Key(y) })
	if got := keys(g2, order); got != "b a c" {
		t.Fatalf("order = %s", got)
	}
}

func TestOrderCycle(t *testing.T) {
	g := build("a>b", "b>c", "c>b", "x>y")
	order, err := g.Order(nil)
	if !errors.Is(err, ErrCycle) {
		t.Fatalf("err = %v", err)
	}
	if got := keys(g, order); got != "a x y" {
		t.Fatalf("order = %s", got)
	}
}

func TestTraverseStates(t *testing.T) {
	g := build("a>b", "b>c", "a>d")
	var seen []string
	states := g.Traverse(nil, func(v int, w *Walk[string]) State {
		seen = append(seen, g.Key(v))
		for _, p := range g.In(v) {
			if s := w.State(p); s == Failed || s == Skipped {
				return Skipped
			}
		}
		if g.Key(v) == "b" {
			return Failed
		}
		return Done
	})
	want := map[string]State{"a": Done, "b": Failed, "c": Skipped, "d": Done}
	for k, s := range want {
		i, _ := g.Index(k)
		if states[i] != s {
			t.Errorf("%s: %v, want %v", k, states[i], s)
		}
	}
	if strings.Join(seen, "") != "abcd" {
		t.Errorf("visit order %v", seen)
	}
}

func TestParallelEdges(t *testing.T) {
	g := build("a>b", "a>b", "a>b")
	if g.EdgeCount() != 3 || len(g.In(1)) != 3 {
		t.Fatalf("edges = %d", g.EdgeCount())
	}
	order, err := g.Order(nil)
	if err != nil || keys(g, order) != "a b" {
		t.Fatalf("order %v %v", order, err)
	}
}

func TestWriteDOT(t *testing.T) {
	g := build(`Exec[a]>Exec[b "q"]`)
	var buf bytes.Buffer
	if err := g.WriteDOT(&buf, "Relationships", g.Key); err != nil {
		t.Fatal(err)
	}
	want := `digraph Relationships {
    label = "Relationships"
    "Exec[a]" [
        fontsize = 8,
        label = "Exec[a]"
    ]

    "Exec[b \"q\"]" [
        fontsize = 8,
        label = "Exec[b \"q\"]"
    ]

    "Exec[a]" -> "Exec[b \"q\"]" [
        fontsize = 8
    ]

}
`
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// randomDAG builds a graph of n nodes and m edges that always point from a
// lower to a higher index, so it has no cycle.
func randomDAG(n, m int, seed uint64) *Graph[int] {
	r := rand.New(rand.NewPCG(seed, 1))
	g := New[int]()
	for i := range n {
		g.AddNode(i)
	}
	for range m {
		a, b := r.IntN(n), r.IntN(n)
		if a == b {
			b = (a + 1) % n
		}
		if a > b {
			a, b = b, a
		}
		g.Connect(a, b)
	}
	return g
}

func TestRandomDAGOrderIsTopological(t *testing.T) {
	g := randomDAG(2000, 6000, 7)
	order, err := g.Order(func(a, b int) bool { return a > b })
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int, g.Len())
	for i, v := range order {
		pos[v] = i
	}
	for v := range g.Len() {
		for _, w := range g.Out(v) {
			if pos[v] >= pos[w] {
				t.Fatalf("edge %d->%d out of order", v, w)
			}
		}
	}
	if len(g.Cycles(func(a, b int) int { return a - b })) != 0 {
		t.Fatal("DAG reported cycles")
	}
}

func BenchmarkPlan10k(b *testing.B) {
	g := randomDAG(10_000, 30_000, 1)
	less := func(x, y int) bool { return x < y }
	b.ReportAllocs()
	for b.Loop() {
		if c := g.Cycles(func(a, b int) int { return a - b }); len(c) != 0 {
			b.Fatal("cycle")
		}
		if _, err := g.Order(less); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildAndPlan10k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	type edge struct{ a, b string }
	names := make([]string, 10_000)
	for i := range names {
		names[i] = fmt.Sprintf("Notify[n%d]", i)
	}
	edges := make([]edge, 30_000)
	for i := range edges {
		x, y := r.IntN(len(names)), r.IntN(len(names))
		if x > y {
			x, y = y, x
		}
		if x == y {
			y = min(x+1, len(names)-1)
			x = y - 1
		}
		edges[i] = edge{names[x], names[y]}
	}
	b.ReportAllocs()
	for b.Loop() {
		g := New[string]()
		for _, n := range names {
			g.AddNode(n)
		}
		for _, e := range edges {
			g.AddEdge(e.a, e.b)
		}
		if c := g.Cycles(strings.Compare); len(c) != 0 {
			b.Fatal("cycle")
		}
		if _, err := g.Order(nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSCCChain100k(b *testing.B) {
	g := New[int]()
	for i := 0; i+1 < 100_000; i++ {
		g.AddEdge(i, i+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		g.SCCs()
	}
}
