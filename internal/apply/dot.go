package apply

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/almanac-sh/almanac/internal/graph"
)

// WriteGraphs writes the plan's Graphviz files into dir (created if needed):
// resources.dot (containment), relationships.dot (relationships between
// resources and containers, before expansion) and expanded_relationships.dot
// (the graph a run traverses, with container sentinels).
func (p *Plan) WriteGraphs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("graph directory: %w", err)
	}
	refs := make([]string, len(p.cat.Resources))
	for i, r := range p.cat.Resources {
		refs[i] = r.Ref()
	}
	containment := graph.New[string]()
	relations := graph.New[string]()
	for _, ref := range refs {
		containment.AddNode(ref)
		relations.AddNode(ref)
	}
	for _, ref := range refs {
		for _, k := range p.children[ref] {
			containment.AddEdge(ref, k)
		}
	}
	for _, e := range p.cat.Edges {
		if e.Kind != Contain {
			relations.AddEdge(e.From, e.To)
		}
	}
	files := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"resources.dot", func(b *bytes.Buffer) error { return containment.WriteDOT(b, "Resources", containment.Key) }},
		{"relationships.dot", func(b *bytes.Buffer) error { return relations.WriteDOT(b, "Relationships", relations.Key) }},
		{"expanded_relationships.dot", func(b *bytes.Buffer) error {
			return p.g.WriteDOT(b, "Expanded_relationships", func(v int) string { return p.nodes[v].dotName() })
		}},
	}
	for _, f := range files {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return err
		}
		if err := WriteFileAtomic(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("graph: %w", err)
		}
	}
	return nil
}

// writeCycles writes cycles.dot with up to 10 paths per cycle and returns
// its path.
func (p *Plan) writeCycles(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("graph directory: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("digraph Resource_Cycles {\n  label = \"Resource Cycles\"\n")
	for _, c := range p.Cycles(10) {
		for _, path := range c.Paths {
			for i, ref := range path {
				if i > 0 {
					b.WriteString(" -> ")
				}
				b.WriteString(graph.Quote(ref))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("}\n")
	file := filepath.Join(dir, "cycles.dot")
	if err := WriteFileAtomic(file, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("graph: %w", err)
	}
	return file, nil
}
