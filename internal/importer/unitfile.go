package importer

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// unitEntry is one Key=Value assignment of a systemd unit file.
type unitEntry struct {
	section string
	key     string
	value   string
	line    int // where the assignment starts
}

// unitFile is a parsed unit file: its assignments in order, and what was
// wrong with lines systemd would ignore.
type unitFile struct {
	name     string
	entries  []unitEntry
	warnings []string
	files    []unitSpan // the unit and its drop-ins, by where their lines start
}

// unitSpan is one file of a unit with drop-ins: its lines are numbered
// from offset+1 in the unit's entries.
type unitSpan struct {
	file   string
	offset int
}

// maxUnitLine bounds one logical line (continuations joined), as systemd
// bounds its lines.
const maxUnitLine = 1 << 20

// parseUnit reads a unit file as systemd.syntax(7) describes: [Section]
// headers, Key=Value assignments (spaces around = removed), comment lines
// starting with # or ;, and a backslash at the end of a line continuing
// it on the next (the backslash read as a space; comment lines between
// continued lines are skipped). Lines systemd ignores with a warning are
// reported the same way; a NUL byte or text that is not UTF-8 is an error
// with its line and column.
func parseUnit(name string, src []byte) (*unitFile, error) {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, fmt.Errorf("%s:%d:%d: a NUL byte; a unit file is text", name, lineOf(src, i), colOf(src, i))
	}
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return nil, fmt.Errorf("%s:%d:%d: not UTF-8 text", name, lineOf(src, i), colOf(src, i))
	}
	u := &unitFile{name: name}
	warn := func(line int, format string, a ...any) {
		u.warnings = append(u.warnings, fmt.Sprintf("%s:%d: %s", name, line, fmt.Sprintf(format, a...)))
	}
	section := ""
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimRight(lines[i], "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';' {
			continue
		}
		// Join continuation lines.
		var b strings.Builder
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			b.WriteString(strings.TrimSuffix(line, "\\"))
			b.WriteByte(' ')
			if b.Len() > maxUnitLine {
				return nil, fmt.Errorf("%s:%d: a line continued past %d bytes", name, start, maxUnitLine)
			}
			i++
			for i+1 < len(lines) && isUnitComment(lines[i]) {
				i++
			}
			line = strings.TrimRight(lines[i], "\r")
		}
		b.WriteString(strings.TrimSuffix(line, "\\"))
		logical := strings.TrimSpace(b.String())
		if logical == "" {
			continue
		}
		if logical[0] == '[' {
			if !strings.HasSuffix(logical, "]") || len(logical) < 3 {
				warn(start, "%q is not a [Section] header; the lines after it are ignored, as systemd ignores them", logical)
				section = "\x00invalid"
				continue
			}
			section = logical[1 : len(logical)-1]
			continue
		}
		key, value, ok := strings.Cut(logical, "=")
		if !ok {
			warn(start, "%q is not a Key=Value assignment; ignored, as systemd ignores it", logical)
			continue
		}
		if section == "" {
			warn(start, "%s= comes before any [Section]; ignored, as systemd ignores it", strings.TrimSpace(key))
			continue
		}
		if section == "\x00invalid" {
			continue
		}
		u.entries = append(u.entries, unitEntry{section: section, key: strings.TrimSpace(key), value: strings.TrimSpace(value), line: start})
	}
	return u, nil
}

// parseUnitSource parses a unit and its drop-ins as one unit: the
// drop-ins' assignments follow the unit's, in order. Each file's lines are
// numbered after the previous file's, so that a line number names one
// assignment; warner turns it back into FILE:LINE.
func parseUnitSource(src UnitSource) (*unitFile, error) {
	u, err := parseUnit(src.Path, src.Data)
	if err != nil {
		return nil, err
	}
	u.files = []unitSpan{{file: src.Path}}
	offset := lineOf(src.Data, len(src.Data))
	for _, d := range src.DropIns {
		du, err := parseUnit(d.Path, d.Data)
		if err != nil {
			return nil, err
		}
		u.warnings = append(u.warnings, du.warnings...)
		u.files = append(u.files, unitSpan{file: d.Path, offset: offset})
		for _, e := range du.entries {
			e.line += offset
			u.entries = append(u.entries, e)
		}
		offset += lineOf(d.Data, len(d.Data))
	}
	return u, nil
}

// warner returns a function that records a warning at one of the unit's
// line numbers, naming the file (the unit or a drop-in) the line is in.
func (u *unitFile) warner(res *Result) func(line int, format string, a ...any) {
	return func(line int, format string, a ...any) {
		f := unitSpan{file: u.name}
		for _, s := range u.files {
			if line > s.offset {
				f = s
			}
		}
		res.warner(f.file)(line-f.offset, format, a...)
	}
}

// isUnitComment is a comment line systemd skips inside a continuation.
func isUnitComment(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && (t[0] == '#' || t[0] == ';')
}

func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte("\n")) + 1 }

func colOf(src []byte, off int) int { return off - bytes.LastIndexByte(src[:off], '\n') }

// unitWords splits a value into words as systemd.service(5) splits
// command lines and Environment=: whitespace separates words; double and
// single quotes group (a quote only opens at the start of a word); C
// escapes (\n, \t, \\, \", \', \xNN, \s for a space …) are decoded; a
// backslash before anything else is kept as written.
func unitWords(s string) ([]string, error) {
	var words []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return words, nil
		}
		var w strings.Builder
		var quote byte
		if s[i] == '"' || s[i] == '\'' {
			quote = s[i]
			i++
		}
		closed := quote == 0
		for i < len(s) {
			c := s[i]
			if quote != 0 && c == quote {
				i++
				closed = true
				if i < len(s) && s[i] != ' ' && s[i] != '\t' {
					return nil, fmt.Errorf("text right after a closing quote: %q", s)
				}
				break
			}
			if quote == 0 && (c == ' ' || c == '\t') {
				break
			}
			if c == '\\' && i+1 < len(s) {
				n, r := unescapeC(s[i+1:])
				w.WriteString(r)
				i += 1 + n
				continue
			}
			w.WriteByte(c)
			i++
		}
		if !closed {
			return nil, fmt.Errorf("unterminated quote in %q", s)
		}
		if word := w.String(); strings.IndexByte(word, 0) >= 0 || !utf8.ValidString(word) {
			return nil, fmt.Errorf("an escape in %q makes a NUL byte or invalid UTF-8", s)
		} else {
			words = append(words, word)
		}
	}
}

// unescapeC decodes the C escape s starts with (after the backslash),
// returning the bytes read and the text.
func unescapeC(s string) (int, string) {
	simple := map[byte]string{'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v",
		'\\': "\\", '"': "\"", '\'': "'", 's': " "}
	if r, ok := simple[s[0]]; ok {
		return 1, r
	}
	if s[0] == 'x' && len(s) >= 3 && isHex(s[1]) && isHex(s[2]) {
		return 3, string([]byte{hexVal(s[1])<<4 | hexVal(s[2])})
	}
	return 0, "\\"
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
