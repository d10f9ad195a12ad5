package importer

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlDoc is one document of a YAML stream and the line it starts on.
type yamlDoc struct {
	text []byte
	line int
}

// docStartRE matches the line that starts a document (`---`, maybe with
// content after it) and docEndRE the one that ends it (`...`).
var (
	docStartRE = regexp.MustCompile(`^---(?:[ \t]|$)`)
	docEndRE   = regexp.MustCompile(`^\.\.\.[ \t]*$`)
)

// yamlDocuments splits a YAML stream at its document markers, so that a
// document that does not parse does not keep the others from being read.
// A marker is a line starting with --- or consisting of ...: inside a
// document such a line can only be the content of a scalar at column 0,
// which a CronJob never has.
func yamlDocuments(src []byte) []yamlDoc {
	var docs []yamlDoc
	start, startLine := 0, 1
	line := 1
	flush := func(end int) {
		if strings.TrimSpace(string(src[start:end])) != "" {
			docs = append(docs, yamlDoc{text: src[start:end], line: startLine})
		}
	}
	for off := 0; off < len(src); line++ {
		end := off
		for end < len(src) && src[end] != '\n' {
			end++
		}
		text := src[off:end]
		next := min(end+1, len(src))
		switch {
		case docStartRE.Match(text):
			flush(off)
			start, startLine = off, line
		case docEndRE.Match(text):
			flush(off)
			start, startLine = next, line+1
		}
		off = next
	}
	flush(len(src))
	return docs
}

// errAliasExpansion is returned for a document whose aliases expand past
// the bound.
var errAliasExpansion = errors.New("aliases expand the document past the size bound")

// decodeBounded parses one document into v, first checking that the
// document, with every alias counted at its full size each time it is
// used, stays within budget bytes. It returns the expanded size.
func decodeBounded(text []byte, budget int, v any) (int, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(text, &n); err != nil {
		return 0, err
	}
	sizes := map[*yaml.Node]int{}
	size := expandedSize(&n, sizes, budget+1, 0)
	if size > budget {
		return size, fmt.Errorf("%w (over %d bytes)", errAliasExpansion, budget)
	}
	if n.Kind == 0 {
		return size, nil
	}
	return size, n.Decode(v)
}

// expandedSize is the size of n's scalars with aliases expanded, stopping
// at limit; anchors' sizes are remembered so that nested aliases cost one
// visit each.
func expandedSize(n *yaml.Node, memo map[*yaml.Node]int, limit, depth int) int {
	if n == nil {
		return 0
	}
	if s, ok := memo[n]; ok {
		return s
	}
	if depth > 1000 {
		return limit // deeper than any CronJob: refuse
	}
	memo[n] = limit // a cycle counts as unbounded
	size := len(n.Value) + 1
	if n.Kind == yaml.AliasNode {
		size = expandedSize(n.Alias, memo, limit, depth+1)
	}
	for _, c := range n.Content {
		if size >= limit {
			break
		}
		size += expandedSize(c, memo, limit, depth+1)
	}
	size = min(size, limit)
	memo[n] = size
	return size
}

// yamlLineRE finds the line number in a YAML parser's message.
var yamlLineRE = regexp.MustCompile(`^yaml: (?:unmarshal errors:\s*)?line (\d+): `)

// yamlErrorLine returns the line (within the document) a YAML parser's
// message names, and the message without it.
func yamlErrorLine(msg string) (int, string, bool) {
	m := yamlLineRE.FindStringSubmatchIndex(msg)
	if m == nil {
		return 0, msg, false
	}
	n, err := strconv.Atoi(msg[m[2]:m[3]])
	return n, msg[m[1]:], err == nil && n > 0
}

// expandK8s expands $(VAR) references in s from env as Kubernetes expands
// a container's command, args and env values: $$ is a literal $, and a
// reference to a name env lacks stays as written (returned in missing).
func expandK8s(s string, env map[string]string) (out string, missing []string) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
				missing = append(missing, name)
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String(), missing
}
