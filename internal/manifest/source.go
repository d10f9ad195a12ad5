package manifest

import (
	"math"
	"strings"
	"sync"
)

// maxSource is the largest manifest accepted: offsets are stored in 32 bits.
const maxSource = math.MaxInt32

// Source is one manifest's name and text. Tokens and syntax tree nodes
// record only byte offsets; Source turns an offset into a file:line:col
// position when one is needed, so parsing does not track lines per token.
// The line table that takes is built on the first position asked for (a
// manifest without errors may need none). A Source is safe for concurrent
// use.
type Source struct {
	name  string
	text  string
	once  sync.Once
	lines []int32 // offset where each line starts; lines[0] == 0
}

// NewSource returns the Source of src, which is named name in positions.
func NewSource(name, src string) *Source {
	return &Source{name: name, text: src}
}

// index builds the line table.
func (s *Source) index() {
	src := s.text
	lines := make([]int32, 1, strings.Count(src, "\n")+1)
	for off := 0; ; {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 || off+i+1 > maxSource {
			break
		}
		off += i + 1
		lines = append(lines, int32(off))
	}
	s.lines = lines
}

// Name is the file name used in positions.
func (s *Source) Name() string { return s.name }

// Pos returns the position of byte offset off: 1-based line and column, the
// column counting bytes.
func (s *Source) Pos(off int) Pos {
	s.once.Do(s.index)
	// Binary search for the last line starting at or before off.
	lo, hi := 0, len(s.lines)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if int(s.lines[m]) <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return Pos{File: s.name, Line: lo + 1, Col: off - int(s.lines[lo]) + 1}
}

// line returns the 1-based line of byte offset off.
func (s *Source) line(off int32) int { return s.Pos(int(off)).Line }

// Loc is a compact source location: a byte offset in a Source. It is what
// syntax tree nodes store; Position expands it.
type Loc struct {
	src *Source
	off int32
}

// Position returns the file:line:col of l, or the zero Pos for a zero Loc.
func (l Loc) Position() Pos {
	if l.src == nil {
		return Pos{}
	}
	return l.src.Pos(int(l.off))
}

// Source returns the manifest l is in; nil for a zero Loc.
func (l Loc) Source() *Source { return l.src }

// Offset returns the byte offset of l in its manifest.
func (l Loc) Offset() int { return int(l.off) }
