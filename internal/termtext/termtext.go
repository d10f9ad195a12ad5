// Package termtext makes text that others wrote safe to print on a
// terminal: control characters, which a terminal would obey (to set its
// title, clear the screen, move the cursor or worse), are shown as
// escapes instead. Newlines and tabs, which only lay text out, are kept.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// needsEscape reports whether r is a control character a terminal might
// act on: C0 other than tab and newline, DEL, and C1.
func needsEscape(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f)
}

// appendEscaped appends p to dst with every control character, and every
// byte that is not UTF-8, written as a Go-style escape (\x1b, \u009b).
// A trailing incomplete UTF-8 sequence is left out unless final; rest is
// how many bytes of p were not consumed.
func appendEscaped(dst, p []byte, final bool) (out []byte, rest int) {
	for i := 0; i < len(p); {
		b := p[i]
		if b < utf8.RuneSelf {
			if needsEscape(rune(b)) {
				dst = fmt.Appendf(dst, `\x%02x`, b)
			} else {
				dst = append(dst, b)
			}
			i++
			continue
		}
		if !final && !utf8.FullRune(p[i:]) {
			return dst, len(p) - i
		}
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			dst = fmt.Appendf(dst, `\x%02x`, b)
		case needsEscape(r):
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = append(dst, p[i:i+n]...)
		}
		i += n
	}
	return dst, 0
}

// Escape returns s with its control characters escaped.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	out, _ := appendEscaped(nil, []byte(s), true)
	return string(out)
}

// Line is Escape, with newlines escaped too: for one cell of a table or
// one value of a key: value list, where a newline would break the layout.
func Line(s string) string {
	return strings.ReplaceAll(Escape(s), "\n", `\n`)
}

// Writer escapes what is written through it before passing it on. A
// UTF-8 sequence split between two writes is held back until it is whole.
type Writer struct {
	w       io.Writer
	pending []byte
	buf     []byte
}

// NewWriter returns a Writer that escapes onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p onto the underlying writer. It reports len(p) when the
// escaped bytes were written.
func (w *Writer) Write(p []byte) (int, error) {
	in := p
	if len(w.pending) > 0 {
		in = append(w.pending, p...)
	}
	var rest int
	w.buf, rest = appendEscaped(w.buf[:0], in, false)
	w.pending = append(w.pending[:0], in[len(in)-rest:]...)
	if _, err := w.w.Write(w.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held-back incomplete UTF-8 sequence, escaped.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	out, _ := appendEscaped(nil, w.pending, true)
	w.pending = w.pending[:0]
	_, err := w.w.Write(out)
	return err
}

// Raw returns the writer under w when w is a Writer, for output (such as
// JSON) that must pass unchanged; otherwise w itself.
func Raw(w io.Writer) io.Writer {
	if tw, ok := w.(*Writer); ok {
		return tw.w
	}
	return w
}
