package apply

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/almanac-sh/almanac/internal/graph"
)

// Ordering decides the relative order of resources that have no
// relationship between them.
type Ordering string

// The orderings Puppet has offered.
const (
	OrderManifest  Ordering = "manifest"   // declaration order (Puppet ≥ 4 default)
	OrderTitleHash Ordering = "title-hash" // SHA-1 of a salted ref: stable yet unrelated to the manifest
	OrderRandom    Ordering = "random"     // shuffled per run from a seed
)

// ParseOrdering checks an --ordering value.
func ParseOrdering(s string) (Ordering, error) {
	switch o := Ordering(s); o {
	case OrderManifest, OrderTitleHash, OrderRandom:
		return o, nil
	}
	return "", fmt.Errorf("invalid ordering %q (want manifest, title-hash or random)", s)
}

// titleHashSalt is the prefix Puppet's TitleHashPrioritizer hashes with.
const titleHashSalt = "NaCl, MgSO4 (salts) and then "

// TitleHash returns the title-hash priority of a resource ref: the hex SHA-1
// of the salted ref, compared as a string.
func TitleHash(ref string) string {
	sum := sha1.Sum([]byte(titleHashSalt + ref))
	return hex.EncodeToString(sum[:])
}

type nodeKind uint8

const (
	nodeResource nodeKind = iota
	nodeAdmissible
	nodeCompleted
)

// node is a vertex of the expanded graph: a resource, or one of the two
// sentinels a container becomes.
type node struct {
	kind nodeKind
	res  *Resource // the resource, or the container for a sentinel
	ref  string    // res.Ref(): how logs and cycle reports name the node
	// priority key: n first, then s
	n uint64
	s string
}

// dotName is how the expanded graph names the node, as Puppet's
// expanded_relationships.dot does: Whit[Admissible_class[Main]].
func (n *node) dotName() string {
	switch n.kind {
	case nodeAdmissible:
		return "Whit[Admissible_" + lowerFirst(n.ref) + "]"
	case nodeCompleted:
		return "Whit[Completed_" + lowerFirst(n.ref) + "]"
	}
	return n.ref
}

func lowerFirst(s string) string {
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return string(s[0]-'A'+'a') + s[1:]
	}
	return s
}

// arc is an edge of the expanded graph with what it carries.
type arc struct {
	to      int
	refresh bool   // carries refresh events
	origin  string // the declaration it came from, for cycle reports
}

// Plan is a catalog turned into the graph a run traverses.
type Plan struct {
	cat      *Catalog
	byRef    map[string]*Resource
	isCont   map[string]bool
	children map[string][]string // container ref -> contents, in catalog order
	nodes    []node
	g        *graph.Graph[int]
	arcs     [][]arc // parallel to g.Out
	resNode  map[string]int
	admit    map[string]int
	complete map[string]int
	Ordering Ordering
	Seed     uint64
}

// NewPlan checks the catalog's references and builds the expanded graph. seed
// is used only by OrderRandom.
func NewPlan(cat *Catalog, ordering Ordering, seed uint64) (*Plan, error) {
	if ordering == "" {
		ordering = OrderManifest
	}
	p := &Plan{
		cat:      cat,
		byRef:    make(map[string]*Resource, len(cat.Resources)),
		isCont:   make(map[string]bool),
		children: make(map[string][]string),
		g:        graph.New[int](),
		resNode:  make(map[string]int, len(cat.Resources)),
		admit:    make(map[string]int),
		complete: make(map[string]int),
		Ordering: ordering,
		Seed:     seed,
	}
	for _, r := range cat.Resources {
		ref := r.Ref()
		if prev, dup := p.byRef[ref]; dup {
			return nil, fmt.Errorf("%sDuplicate declaration: %s is already declared%s", posPrefix(r.Pos), ref, atPos(prev.Pos))
		}
		p.byRef[ref] = r
		if r.IsContainer || r.Type == "Class" || r.Type == "class" || r.Type == "Stage" || r.Type == "stage" {
			p.isCont[ref] = true
		}
	}
	contained := make(map[[2]string]bool)
	addChild := func(parent, child, pos string) error {
		if _, ok := p.byRef[parent]; !ok {
			return fmt.Errorf("%sCould not find container %s of %s", posPrefix(pos), parent, child)
		}
		p.isCont[parent] = true
		if !contained[[2]string{parent, child}] {
			contained[[2]string{parent, child}] = true
			p.children[parent] = append(p.children[parent], child)
		}
		return nil
	}
	for _, r := range cat.Resources {
		if r.Container != "" {
			if err := addChild(r.Container, r.Ref(), r.Pos); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range cat.Edges {
		if _, ok := p.byRef[e.From]; !ok {
			return nil, fmt.Errorf("%sCould not find resource '%s' for relationship on '%s'", posPrefix(e.Pos), e.From, e.To)
		}
		if _, ok := p.byRef[e.To]; !ok {
			return nil, fmt.Errorf("%sCould not find resource '%s' for relationship from '%s'", posPrefix(e.Pos), e.To, e.From)
		}
		if e.Kind == Contain {
			if err := addChild(e.From, e.To, e.Pos); err != nil {
				return nil, err
			}
		}
	}
	p.build()
	return p, nil
}

func posPrefix(pos string) string {
	if pos == "" {
		return ""
	}
	return pos + ": "
}

func atPos(pos string) string {
	if pos == "" {
		return ""
	}
	return " at " + pos
}

func (p *Plan) addNode(n node) int {
	i := p.g.AddNode(len(p.nodes))
	p.nodes = append(p.nodes, n)
	p.arcs = append(p.arcs, nil)
	return i
}

func (p *Plan) connect(from, to int, refresh bool, origin string) {
	p.g.Connect(from, to)
	p.arcs[from] = append(p.arcs[from], arc{to: to, refresh: refresh, origin: origin})
}

// build makes the expanded graph, in Puppet's order: every vertex, the edges
// between plain resources, then per container the sentinel links, the
// containment edges and the container's own relationships moved onto its
// sentinels.
func (p *Plan) build() {
	var rng *rand.Rand
	if p.Ordering == OrderRandom {
		rng = rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	}
	for i, r := range p.cat.Resources {
		ref := r.Ref()
		n := node{res: r, ref: ref}
		switch p.Ordering {
		case OrderTitleHash:
			n.s = TitleHash(ref)
		case OrderRandom:
			n.n = rng.Uint64()
		default:
			n.n = uint64(i)
		}
		if p.isCont[ref] {
			n.kind = nodeAdmissible
			p.admit[ref] = p.addNode(n)
			n.kind = nodeCompleted
			p.complete[ref] = p.addNode(n)
			continue
		}
		p.resNode[ref] = p.addNode(n)
	}
	var deferred []Edge
	for _, e := range p.cat.Edges {
		if e.Kind == Contain {
			continue
		}
		if p.isCont[e.From] || p.isCont[e.To] {
			deferred = append(deferred, e)
			continue
		}
		p.connect(p.resNode[e.From], p.resNode[e.To], e.Kind == Notify, edgeOrigin(e))
	}
	done := make([]bool, len(deferred))
	for _, r := range p.cat.Resources {
		c := r.Ref()
		if !p.isCont[c] {
			continue
		}
		kids := p.children[c]
		if len(kids) == 0 {
			p.connect(p.admit[c], p.complete[c], false, "empty "+c)
		}
		for _, k := range kids {
			origin := k + " is contained in " + c + atPos(p.byRef[k].Pos)
			p.connect(p.admit[c], p.inNode(k), true, origin)
			p.connect(p.outNode(k), p.complete[c], true, origin)
		}
		for pass := 0; pass < 2; pass++ { // edges into the container, then out of it
			for i, e := range deferred {
				if done[i] || (pass == 0 && e.To != c) || (pass == 1 && e.From != c) {
					continue
				}
				done[i] = true
				p.connect(p.outNode(e.From), p.inNode(e.To), e.Kind == Notify, edgeOrigin(e))
			}
		}
	}
	p.groupArcs()
}

// groupArcs orders each node's arcs by target, targets in the order they
// were first linked, as Puppet's graph keeps a vertex's edges: all events
// from one resource to one target are then scheduled together.
func (p *Plan) groupArcs() {
	first := make(map[int]int)
	for v, arcs := range p.arcs {
		if len(arcs) < 2 {
			continue
		}
		clear(first)
		grouped := true
		for i, a := range arcs {
			if j, seen := first[a.to]; !seen {
				first[a.to] = i
			} else if arcs[i-1].to != a.to || j > i {
				grouped = false
			}
		}
		if grouped {
			continue
		}
		sorted := make([]arc, len(arcs))
		copy(sorted, arcs)
		slices.SortStableFunc(sorted, func(a, b arc) int { return cmp.Compare(first[a.to], first[b.to]) })
		p.arcs[v] = sorted
	}
}

func edgeOrigin(e Edge) string {
	arrow := " -> "
	if e.Kind == Notify {
		arrow = " ~> "
	}
	return e.From + arrow + e.To + atPos(e.Pos)
}

// inNode is where edges into ref land: its admissible sentinel for a container.
func (p *Plan) inNode(ref string) int {
	if p.isCont[ref] {
		return p.admit[ref]
	}
	return p.resNode[ref]
}

// outNode is where edges out of ref start: its completed sentinel for a container.
func (p *Plan) outNode(ref string) int {
	if p.isCont[ref] {
		return p.complete[ref]
	}
	return p.resNode[ref]
}

// less orders ready nodes by priority key.
func (p *Plan) less(a, b int) bool {
	x, y := &p.nodes[a], &p.nodes[b]
	if x.n != y.n {
		return x.n < y.n
	}
	return x.s < y.s
}

// Order returns the refs of the plain resources in the order a run visits
// them if nothing fails, or an error if the graph has a cycle.
func (p *Plan) Order() ([]string, error) {
	order, err := p.g.Order(p.less)
	if err != nil {
		return nil, err
	}
	refs := make([]string, 0, len(p.resNode))
	for _, v := range order {
		if p.nodes[v].kind == nodeResource {
			refs = append(refs, p.nodes[v].ref)
		}
	}
	return refs, nil
}

// Cycle is one dependency cycle of a plan.
type Cycle struct {
	Members []string   // the nodes of the strongly connected component, sorted
	Paths   [][]string // up to the requested number of paths, each ending where it loops
	Origins []string   // the declarations behind the edges of the first path
}

// Cycles returns the plan's dependency cycles, each with up to maxPaths
// paths, in Puppet's order.
func (p *Plan) Cycles(maxPaths int) []Cycle {
	key := func(v int) string {
		if p.nodes[v].kind == nodeResource {
			return p.nodes[v].ref
		}
		return p.nodes[v].dotName()
	}
	comps := p.g.Cycles(func(a, b int) int { return strings.Compare(key(a), key(b)) })
	out := make([]Cycle, 0, len(comps))
	for _, comp := range comps {
		c := Cycle{}
		for _, v := range comp {
			c.Members = append(c.Members, p.nodes[v].ref)
		}
		for i, path := range p.g.PathsInCycle(comp, maxPaths) {
			refs := make([]string, len(path))
			for j, v := range path {
				refs[j] = p.nodes[v].ref
				if i == 0 && j > 0 {
					c.Origins = append(c.Origins, p.origin(path[j-1], v))
				}
			}
			c.Paths = append(c.Paths, refs)
		}
		out = append(out, c)
	}
	return out
}

func (p *Plan) origin(from, to int) string {
	for _, a := range p.arcs[from] {
		if a.to == to {
			return a.origin
		}
	}
	return ""
}

// CycleMessage formats cycles as Puppet's error does, including the literal
// backslash-n Puppet puts between paths. tail is the last sentence.
func CycleMessage(cycles []Cycle, tail string) string {
	var b strings.Builder
	if len(cycles) == 1 {
		b.WriteString("Found 1 dependency cycle:\n")
	} else {
		fmt.Fprintf(&b, "Found %d dependency cycles:\n", len(cycles))
	}
	for _, c := range cycles {
		for i, path := range c.Paths {
			if i > 0 {
				b.WriteString(`\n`)
			}
			b.WriteString("(" + strings.Join(path, " => ") + ")")
		}
		b.WriteString(`\n`)
	}
	b.WriteString(tail)
	return b.String()
}
