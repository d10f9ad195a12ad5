package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteDOT writes g as a Graphviz digraph called name, laid out as Puppet
// lays out its --graph files: a block per node with a small font and its
// label, then a block per edge, each followed by a blank line. label gives each
// node's text; nodes and edges appear in insertion order. Edge labels are
// not written, as in Puppet.
func (g *Graph[K]) WriteDOT(w io.Writer, name string, label func(v int) string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n    label = %s\n", strings.ReplaceAll(name, " ", "_"), Quote(name))
	for v := range g.keys {
		l := Quote(label(v))
		fmt.Fprintf(bw, "    %s [\n        fontsize = 8,\n        label = %s\n    ]\n\n", l, l)
	}
	for v := range g.keys {
		for _, t := range g.out[v] {
			fmt.Fprintf(bw, "    %s -> %s [\n        fontsize = 8\n    ]\n\n", Quote(label(v)), Quote(label(t)))
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// Quote returns s as a DOT double-quoted string.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
