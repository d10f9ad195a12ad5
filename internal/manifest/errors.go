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

// Error is one positioned problem in a manifest, or, when More is not
// zero, the count of the problems a full list left out (see MaxErrors).
type Error struct {
	Pos Pos
	Msg string
	// More, when not zero, makes this entry stand for that many errors
	// that were counted but not kept; Pos and Msg are then empty.
	More int
}

// Error formats e as "file:line:col: message", or "... and N more errors"
// for an entry that counts left-out errors.
func (e *Error) Error() string {
	if e.More > 0 {
		return fmt.Sprintf("... and %d more %s", e.More, pluralErrors(e.More))
	}
	return e.Pos.String() + ": " + e.Msg
}

func pluralErrors(n int) string {
	if n == 1 {
		return "error"
	}
	return "errors"
}

// MaxErrors is how many errors an ErrorList keeps. Past it Add only
// counts them, in one last entry with More set, as go/scanner's
// ErrorList and the Go compiler stop listing after their first errors: a
// generated manifest with a mistake repeated on 300,000 resources is then
// rejected in memory proportional to the manifest, not to its errors.
const MaxErrors = 1000

// ErrorList is every problem found, in the order found until Sort is called,
// up to MaxErrors of them: the errors past that are only counted, in a
// last entry with More set (see Count).
// Its Error method joins the entries with newlines, one self-contained
// "file:line:col: message" per line.
type ErrorList []*Error

// Add appends an error at pos; past MaxErrors it only counts it.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	if n := len(*l); n >= MaxErrors {
		if last := (*l)[n-1]; last.More > 0 {
			last.More++
		} else {
			*l = append(*l, &Error{More: 1})
		}
		return
	}
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Count is how many errors the list stands for: its entries and the
// errors they count as left out.
func (l ErrorList) Count() int {
	n := 0
	for _, e := range l {
		n += max(e.More, 1)
	}
	return n
}

// Sort orders the list by position, keeping the order of errors at the same
// position, and drops exact duplicates. The errors left out (of lists
// appended together) are counted in one last entry.
func (l *ErrorList) Sort() {
	more := 0
	kept := (*l)[:0]
	for _, e := range *l {
		if e.More > 0 {
			more += e.More
			continue
		}
		kept = append(kept, e)
	}
	*l = kept
	defer func() {
		if more > 0 {
			*l = append(*l, &Error{More: more})
		}
	}()
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
