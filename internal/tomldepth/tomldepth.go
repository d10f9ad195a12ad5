// Package tomldepth bounds how deeply a TOML document nests, before it is
// decoded. The decoder builds one level of tables per key segment and
// copies the key path at each level, so a 20 KB line of dotted keys
// (b.b.b…b = 1) costs it gigabytes; and it recurses once per array or
// inline table, so a few megabytes of '[' exhaust its stack. Check scans
// the text once, in linear time and constant memory, and refuses a document
// in which any value sits deeper than MaxDepth levels.
//
// A value's depth counts every level between it and the document's root:
// the segments of its table header ([a.b.c] or [[a.b.c]]), the segments of
// its dotted key, and the arrays and inline tables it sits in, with the
// segments of their keys. The scan follows TOML's lexical rules (strings,
// comments, keys, headers) but is no parser: what it lets through, the
// decoder still checks.
package tomldepth

import "fmt"

// MaxDepth is the deepest a value may sit. almanac's own files need four
// levels at most (updates.periodic.window[…].days).
const MaxDepth = 64

// Error is a document nested too deeply, at the line and column (1-based,
// in bytes) of the key, header or bracket that goes past MaxDepth.
type Error struct {
	Line, Col int
	What      string // "dotted key", "table header", "arrays or inline tables"
	Depth     int    // how deep it goes, counted up to the point of refusal
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s nested more than %d levels deep (table headers, dotted keys, arrays and inline tables count together)",
		e.Line, e.Col, e.What, MaxDepth)
}

// Message is the error without its position, for callers that print the
// position in their own form.
func (e *Error) Message() string {
	return fmt.Sprintf("%s nested more than %d levels deep (table headers, dotted keys, arrays and inline tables count together)", e.What, MaxDepth)
}

// frame is an open array or inline table.
type frame struct {
	table bool // an inline table: its keys add their segments
	depth int  // the depth of what sits directly in it
}

// scanner walks the text byte by byte.
type scanner struct {
	src             string
	i               int
	line, lineStart int
	stack           []frame
	tableDepth      int // segments of the current [header]
	valueDepth      int // depth of the value about to start
}

// Check returns an *Error if src nests deeper than MaxDepth, else nil.
func Check(src string) error {
	s := &scanner{src: src, line: 1}
	expectKey := true // at the start of a line outside brackets, or after '{' or ',' in an inline table
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\n':
			s.newline()
			s.i++
			if len(s.stack) == 0 {
				expectKey = true
			}
			continue
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
			continue
		case c == '#':
			for s.i < len(src) && src[s.i] != '\n' {
				s.i++
			}
			continue
		}
		if expectKey {
			expectKey = false
			if c == '[' && len(s.stack) == 0 {
				if err := s.header(); err != nil {
					return err
				}
				continue
			}
			if isBare(c) || c == '"' || c == '\'' {
				base := s.tableDepth
				if len(s.stack) > 0 {
					base = s.stack[len(s.stack)-1].depth
				}
				line, col := s.line, s.i-s.lineStart+1
				n := s.key()
				if base+n > MaxDepth {
					return &Error{Line: line, Col: col, What: "dotted key", Depth: base + n}
				}
				s.valueDepth = base + n
				continue
			}
		}
		switch c {
		case '"', '\'':
			s.str()
			continue
		case '[', '{':
			d := s.valueDepth
			if c == '[' {
				d++
			}
			if d > MaxDepth || len(s.stack) >= MaxDepth {
				return &Error{Line: s.line, Col: s.i - s.lineStart + 1, What: "arrays or inline tables", Depth: d}
			}
			s.stack = append(s.stack, frame{table: c == '{', depth: d})
			s.valueDepth = d
			expectKey = c == '{'
		case ']', '}':
			if len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
			s.restoreValueDepth()
		case ',':
			if len(s.stack) > 0 {
				top := s.stack[len(s.stack)-1]
				expectKey = top.table
				s.valueDepth = top.depth
			}
		}
		s.i++
	}
	return nil
}

// restoreValueDepth sets the depth of the next value to that of the
// innermost open array or inline table.
func (s *scanner) restoreValueDepth() {
	if len(s.stack) > 0 {
		s.valueDepth = s.stack[len(s.stack)-1].depth
	} else {
		s.valueDepth = s.tableDepth
	}
}

func (s *scanner) newline() { s.line, s.lineStart = s.line+1, s.i+1 }

// header reads [a.b] or [[a.b]] at s.i and sets the table depth.
func (s *scanner) header() error {
	line, col := s.line, s.i-s.lineStart+1
	s.i++
	n := 0
	if s.i < len(s.src) && s.src[s.i] == '[' {
		// An array of tables: its elements are one level deeper.
		s.i++
		n++
	}
	s.skipBlank()
	n += s.key()
	if n > MaxDepth {
		return &Error{Line: line, Col: col, What: "table header", Depth: n}
	}
	s.tableDepth, s.valueDepth = n, n
	for s.i < len(s.src) && s.src[s.i] == ']' {
		s.i++
	}
	return nil
}

// key reads a dotted key at s.i and returns its number of segments. It
// stops at the first byte that cannot continue the key ('=', ']', a line
// break), leaving it for the caller.
func (s *scanner) key() int {
	n := 0
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case isBare(c):
			for s.i < len(s.src) && isBare(s.src[s.i]) {
				s.i++
			}
		case c == '"' || c == '\'':
			s.str()
		default:
			return n
		}
		n++
		s.skipBlank()
		if s.i >= len(s.src) || s.src[s.i] != '.' {
			return n
		}
		s.i++
		s.skipBlank()
	}
	return n
}

func (s *scanner) skipBlank() {
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t') {
		s.i++
	}
}

// str skips the string that starts at s.i: basic or literal, single- or
// multi-line. An unterminated one runs to the end of its line (or of the
// text, for a multi-line string); the decoder reports it.
func (s *scanner) str() {
	q := s.src[s.i]
	multi := s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q
	if multi {
		s.i += 3
	} else {
		s.i++
	}
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\' && q == '"':
			s.i++
			if s.i < len(s.src) && s.src[s.i] == '\n' {
				s.newline()
			}
		case c == '\n':
			if !multi {
				return
			}
			s.newline()
		case c == q:
			if !multi {
				s.i++
				return
			}
			if s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q {
				// Up to two more quotes may end the string's content.
				s.i += 3
				for k := 0; k < 2 && s.i < len(s.src) && s.src[s.i] == q; k++ {
					s.i++
				}
				return
			}
		}
		s.i++
	}
}

// isBare reports whether c may appear in a bare key (TOML 1.0).
func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
