package cli

import (
	"flag"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/facts"
)

// nodeFlag adds --node, the name node definitions are matched against.
func nodeFlag(fs *flag.FlagSet) *string {
	return fs.String("node", "", "match node definitions against this name (default: this host's fully qualified name)")
}

// hostOptions describes this host to the compiler: its facts, and the node
// name (node, or the host's fully qualified name as Puppet's certname).
func hostOptions(node string) catalog.Options {
	certname, f := facts.Local()
	if node == "" {
		node = certname
	}
	return catalog.Options{Node: node, Facts: f}
}
