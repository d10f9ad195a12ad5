package manifest

import (
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// bytes, as Go's own tools do.
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats p as file:line:col.
func (p Pos) String() string {
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether p refers to a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Before reports whether p sorts before q (by file, then line, then column).
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Error is one positioned problem in a manifest.
type Error struct {
	Pos Pos
	Msg string
}

// Error formats e as "file:line:col: message".
func (e *Error) Error() string {
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is every problem found, in the order found until Sort is called.
// Its Error method joins the entries with newlines, one self-contained
// "file:line:col: message" per line.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the list by position, keeping the order of errors at the same
// position, and drops exact duplicates.
func (l *ErrorList) Sort() {
	slices.SortStableFunc(*l, func(a, b *Error) int {
		if a.Pos.Before(b.Pos) {
			return -1
		}
		if b.Pos.Before(a.Pos) {
			return 1
		}
		return 0
	})
	out := (*l)[:0]
	for _, e := range *l {
		if len(out) > 0 && *e == *out[len(out)-1] {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Error joins all entries with newlines.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
