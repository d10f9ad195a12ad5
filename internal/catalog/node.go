package catalog

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// This file holds what a compilation knows about the host it compiles for:
// the node name that picks a node definition, and the $facts hash.

// Options are what a compilation is told about the host it is for.
type Options struct {
	// Node is the name node definitions are matched against (Puppet's
	// certname); "" matches only the default node.
	Node string
	// Facts become the $facts hash, nested maps as facts.Gather returns
	// them. Nil leaves $facts empty.
	Facts map[string]any
	// Schedules reports whether a schedule exists outside the manifests
	// (a daemon's named windows), so that a resource's schedule
	// metaparameter may name it; nil means none does.
	Schedules func(name string) bool
}

// nodeDefs are the node definitions of a compilation, in the order they
// appear, and the host names they define (lower case).
type nodeDefs struct {
	list  []*manifest.NodeDef
	names map[string]*manifest.NodeDef
}

// hoistNode registers a top-level node definition, reporting a name
// defined twice with Puppet's message.
func (c *compiler) hoistNode(n *manifest.NodeDef) {
	if c.nodes.names == nil {
		c.nodes.names = map[string]*manifest.NodeDef{}
	}
	for _, nn := range n.Names {
		key := nn.Name
		switch {
		case nn.Default:
			key = "default"
		case nn.Regex:
			key = "/" + nn.Name + "/"
		}
		if old, dup := c.nodes.names[key]; dup {
			c.errorf(nn.Position(), "Node '%s' is already defined %s; cannot redefine", key, where(old.Position()))
			continue
		}
		c.nodes.names[key] = n
	}
	c.nodes.list = append(c.nodes.list, n)
}

// matchNode picks the node definition for name as Puppet does: a node
// whose names include name exactly (case-insensitively), else the first
// node, in manifest order, with a regular expression matching name, else
// the default node. The matching names' regular expression captures are
// returned for $0, $1, ...
func (c *compiler) matchNode(name string) (*manifest.NodeDef, []string) {
	lower := strings.ToLower(name)
	if lower != "" {
		if n, ok := c.nodes.names[lower]; ok {
			return n, nil
		}
		for _, n := range c.nodes.list {
			for _, nn := range n.Names {
				if !nn.Regex {
					continue
				}
				re, err := regexp.Compile(nn.Name)
				if err != nil {
					continue // reported by the parser
				}
				if m := re.FindStringSubmatch(lower); m != nil {
					return n, m
				}
			}
		}
	}
	return c.nodes.names["default"], nil
}

// evalNodeDefinition evaluates the node definition matching the node name, after
// the top-level code, as Puppet does. Its resources are contained in
// Node[name] (the name it was matched by), which sits in Class[Main].
// With node definitions present and none matching, compilation fails with
// Puppet's message.
func (c *compiler) evalNodeDefinition() {
	if len(c.nodes.list) == 0 {
		return
	}
	n, groups := c.matchNode(c.opts.Node)
	if n == nil {
		c.errorf(c.posOf(c.main), "Could not find node statement with name 'default' or '%s'", strings.ToLower(c.opts.Node))
		return
	}
	title := nodeTitle(n)
	r := c.newRes("node", title, c.files.of(n), c.main, true)
	c.rec(r).scope = c.scopeID(c.top)
	sc := newScope(c.top, c.top, r)
	sc.tags = nameTags(title)
	c.rec(r).tags = c.exactTags(append([]string{"node"}, sc.tags...))
	if groups != nil {
		sc.matches = groups
	}
	c.evalBlock(sc, n.Body)
}

// nodeTitle is the title of a node's resource: its first name, with a
// regular expression named as Puppet names it.
func nodeTitle(n *manifest.NodeDef) string {
	nn := n.Names[0]
	switch {
	case nn.Default:
		return "default"
	case nn.Regex:
		return "__node_regexp__" + regexpTitle(nn.Name)
	}
	return nn.Name
}

var notTitleChars = regexp.MustCompile(`[^-\w:.]`)

func regexpTitle(pattern string) string {
	return strings.TrimLeft(notTitleChars.ReplaceAllString(pattern, ""), ".")
}

// setFacts binds $facts in the top scope.
func (c *compiler) setFacts() {
	c.top.vars["facts"] = factValue(c.opts.Facts)
}

// factValue turns gathered facts into manifest values: maps become hashes
// with sorted keys, ints become Integers.
func factValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		h := newHash()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			h.set(k, factValue(x[k]))
		}
		return h
	case nil:
		return newHash()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = factValue(e)
		}
		return out
	case int:
		return int64(x)
	case int64, float64, bool, string:
		return x
	}
	return fmt.Sprint(v)
}
