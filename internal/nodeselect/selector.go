package nodeselect

import (
	"fmt"
	"slices"
	"strings"
)

// Mode says how many runs an instant of a job becomes.
type Mode int

// Modes of a selector.
const (
	// ModeAny: one run, on whichever node claims it (the default).
	ModeAny Mode = iota
	// ModeAll: one run on every live node.
	ModeAll
	// ModeMatch: one run on every live node the selector's terms match.
	ModeMatch
)

// Op is a label requirement's operator.
type Op string

// Operators of label requirements.
const (
	OpEq    Op = "="
	OpNotEq Op = "!="
	OpIn    Op = "in"
	OpNotIn Op = "notin"
)

// Requirement is one label term of a selector.
type Requirement struct {
	Key string
	Op  Op
	// Values holds one value for = and !=, one or more for in and notin.
	Values []string
}

// Selector picks nodes. The zero Selector is `any`.
type Selector struct {
	Mode Mode
	// Name, if set, is the one node name a ModeMatch selector requires.
	Name string
	// Reqs are the label requirements a ModeMatch node must all meet.
	Reqs []Requirement
}

// MaxLen bounds a selector's text.
const MaxLen = 1024

// Matches reports whether the node called name with labels is selected:
// always for any and all; for a match selector when the name (if given)
// is the node's and every requirement holds. A missing label has no value:
// k=v and k in (...) fail, k!=v and k notin (...) hold.
func (s Selector) Matches(name string, labels map[string]string) bool {
	if s.Mode != ModeMatch {
		return true
	}
	if s.Name != "" && s.Name != name {
		return false
	}
	for _, r := range s.Reqs {
		v, ok := labels[r.Key]
		in := ok && slices.Contains(r.Values, v)
		if (r.Op == OpEq || r.Op == OpIn) != in {
			return false
		}
	}
	return true
}

// String renders s in the grammar Parse reads; Parse(s.String()) gives s
// back.
func (s Selector) String() string {
	switch s.Mode {
	case ModeAny:
		return "any"
	case ModeAll:
		return "all"
	}
	var parts []string
	if s.Name != "" {
		parts = append(parts, s.Name)
	}
	for _, r := range s.Reqs {
		switch r.Op {
		case OpIn, OpNotIn:
			parts = append(parts, r.Key+" "+string(r.Op)+" ("+strings.Join(r.Values, ",")+")")
		default:
			parts = append(parts, r.Key+string(r.Op)+r.Values[0])
		}
	}
	return strings.Join(parts, ",")
}

// SyntaxError is a selector mistake at a column (1-based, in bytes).
type SyntaxError struct {
	Col int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

// Parse reads a selector: `any` (or the empty string), `all`, or terms
// joined by commas, all of which must hold: a node name, `k=v`, `k!=v`,
// `k in (a,b)` or `k notin (a,b)`. Spaces around terms and operators are
// allowed. A mistake is a *SyntaxError naming its column.
func Parse(src string) (Selector, error) {
	if len(src) > MaxLen {
		return Selector{}, &SyntaxError{Col: MaxLen + 1, Msg: fmt.Sprintf("selector longer than %d bytes", MaxLen)}
	}
	p := &parser{src: src}
	p.space()
	if p.eof() {
		return Selector{}, nil
	}
	var s Selector
	s.Mode = ModeMatch
	seen := map[string]int{}
	for terms := 0; ; terms++ {
		p.space()
		start := p.pos
		if err := p.term(&s, seen); err != nil {
			return Selector{}, err
		}
		if (s.Name == "any" || s.Name == "all") && (terms > 0 || p.more()) {
			return Selector{}, &SyntaxError{Col: start + 1, Msg: fmt.Sprintf("%q must stand alone", s.Name)}
		}
		p.space()
		if p.eof() {
			break
		}
		if p.peek() != ',' {
			return Selector{}, p.errf("want ',' between terms, found %s", p.found())
		}
		p.pos++
	}
	switch s.Name {
	case "any":
		return Selector{}, nil
	case "all":
		return Selector{Mode: ModeAll}, nil
	}
	return s, nil
}

// parser reads a selector left to right.
type parser struct {
	src string
	pos int
}

func (p *parser) eof() bool  { return p.pos >= len(p.src) }
func (p *parser) peek() byte { return p.src[p.pos] }

// more reports whether anything but spaces is left.
func (p *parser) more() bool { return strings.TrimSpace(p.src[p.pos:]) != "" }

func (p *parser) space() {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
		p.pos++
	}
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Col: p.pos + 1, Msg: fmt.Sprintf(format, args...)}
}

// found describes what is at the current position, for errors.
func (p *parser) found() string {
	if p.eof() {
		return "end of selector"
	}
	return fmt.Sprintf("%q", p.src[p.pos])
}

// word reads a run of key, value and name characters.
func (p *parser) word() string {
	start := p.pos
	for !p.eof() {
		c := p.peek()
		if !alnum(c) && c != '-' && c != '_' && c != '.' && c != '/' {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

// term reads one term into s; seen remembers the keys already required.
func (p *parser) term(s *Selector, seen map[string]int) error {
	start := p.pos
	w := p.word()
	if w == "" {
		return p.errf("want a node name or a label key, found %s", p.found())
	}
	afterWord := p.pos
	p.space()
	var r Requirement
	switch {
	case !p.eof() && p.peek() == '=':
		p.pos++
		if !p.eof() && p.peek() == '=' {
			p.pos++
		}
		r.Op = OpEq
	case strings.HasPrefix(p.src[p.pos:], "!="):
		p.pos += 2
		r.Op = OpNotEq
	case p.eof() || p.peek() == ',':
		return p.name(s, w, start)
	default:
		opAt := p.pos
		op := p.word()
		if op != string(OpIn) && op != string(OpNotIn) {
			p.pos = opAt
			if afterWord == opAt {
				return p.errf("unexpected %s after %q (want =, !=, in or notin)", p.found(), w)
			}
			return p.errf("want =, !=, in or notin after %q, found %s", w, p.found())
		}
		r.Op = Op(op)
	}
	if err := CheckKey(w); err != nil {
		return &SyntaxError{Col: start + 1, Msg: err.Error()}
	}
	if at, dup := seen[w]; dup {
		return &SyntaxError{Col: start + 1, Msg: fmt.Sprintf("label key %q already used at col %d", w, at)}
	}
	seen[w] = start + 1
	r.Key = w
	p.space()
	if r.Op == OpIn || r.Op == OpNotIn {
		vals, err := p.list()
		if err != nil {
			return err
		}
		r.Values = vals
	} else {
		at := p.pos
		v := p.word()
		if err := CheckValue(v); err != nil {
			return &SyntaxError{Col: at + 1, Msg: err.Error()}
		}
		r.Values = []string{v}
	}
	s.Reqs = append(s.Reqs, r)
	return nil
}

// name records a bare node name.
func (p *parser) name(s *Selector, w string, start int) error {
	if err := checkNodeName(w); err != nil {
		return &SyntaxError{Col: start + 1, Msg: err.Error()}
	}
	if s.Name != "" {
		return &SyntaxError{Col: start + 1, Msg: fmt.Sprintf("a second node name %q: terms are ANDed, so two names match no node", w)}
	}
	s.Name = w
	return nil
}

// list reads "(a,b,...)" for in and notin.
func (p *parser) list() ([]string, error) {
	if p.eof() || p.peek() != '(' {
		return nil, p.errf("want '(' to open the value list, found %s", p.found())
	}
	p.pos++
	var vals []string
	for {
		p.space()
		at := p.pos
		v := p.word()
		if v == "" {
			return nil, p.errf("want a value, found %s", p.found())
		}
		if err := CheckValue(v); err != nil {
			return nil, &SyntaxError{Col: at + 1, Msg: err.Error()}
		}
		if !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
		p.space()
		if p.eof() {
			return nil, p.errf("value list not closed with ')'")
		}
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return vals, nil
		default:
			return nil, p.errf("want ',' or ')' in the value list, found %s", p.found())
		}
	}
}

// checkNodeName checks a node name as a selector term: letters, digits,
// '-', '_' and '.', at most 253 characters.
func checkNodeName(n string) error {
	if len(n) > maxPrefixLen {
		return fmt.Errorf("node name longer than %d characters", maxPrefixLen)
	}
	if strings.Contains(n, "/") {
		return fmt.Errorf("node name %q: '/' is not allowed (a label key needs an operator: =, !=, in or notin)", n)
	}
	return nil
}
