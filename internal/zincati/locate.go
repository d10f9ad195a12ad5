package zincati

import (
	"strconv"
	"strings"
)

// position is a 1-based line and column in a fragment.
type position struct{ line, col int }

// locator finds where keys and values sit in a fragment's source. The TOML
// library reports positions only for syntax errors, so semantic errors
// ("start_time 25:00 in the second window") are placed by a light scan of the
// lines: table headers, `key = value` lines, and the i-th `[[array]]` table.
// The scan is only used for positions; the library remains the parser. When a
// fragment is written in a form the scan does not follow (inline tables,
// multi-line strings), positions fall back to the enclosing table or to none.
type locator struct {
	src  string
	keys map[string]position // "updates.periodic.window[1].days" -> key
	vals map[string]int      // same keys -> byte offset of the value
}

func newLocator(src string) *locator {
	l := &locator{src: src, keys: map[string]position{}, vals: map[string]int{}}
	counts := map[string]int{}
	table := ""
	inMulti := "" // the delimiter of a multi-line string being skipped
	offset := 0
	for n, line := range strings.SplitAfter(src, "\n") {
		lineStart := offset
		offset += len(line)
		if inMulti != "" {
			if strings.Contains(line, inMulti) {
				inMulti = ""
			}
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		col := len(line) - len(trimmed) + 1
		trimmed = strings.TrimRight(trimmed, "\r\n")
		switch {
		case trimmed == "" || trimmed[0] == '#':
			continue
		case strings.HasPrefix(trimmed, "[["):
			end := strings.Index(trimmed, "]]")
			if end < 0 {
				continue
			}
			path := joinKey(splitKey(trimmed[2:end]))
			idx := counts[path]
			counts[path]++
			table = path + "[" + strconv.Itoa(idx) + "]"
			l.record(table, position{n + 1, col}, -1)
			continue
		case trimmed[0] == '[':
			end := strings.IndexByte(trimmed, ']')
			if end < 0 {
				continue
			}
			table = l.resolveTable(joinKey(splitKey(trimmed[1:end])), counts)
			l.record(table, position{n + 1, col}, -1)
			continue
		}
		eq := strings.IndexByte(trimmed, '=')
		if eq <= 0 {
			continue
		}
		parts := splitKey(trimmed[:eq])
		if len(parts) == 0 {
			continue
		}
		key := joinKey(parts)
		if table != "" {
			key = table + "." + key
		}
		rest := trimmed[eq+1:]
		value := strings.TrimLeft(rest, " \t")
		valOff := lineStart + (col - 1) + eq + 1 + (len(rest) - len(value))
		l.record(key, position{n + 1, col}, valOff)
		for _, delim := range []string{`"""`, `'''`} {
			if strings.Count(value, delim)%2 == 1 {
				inMulti = delim
			}
		}
	}
	return l
}

// resolveTable maps a plain table header under an array of tables
// ("updates.periodic.window.extra") to the latest element it belongs to.
func (l *locator) resolveTable(path string, counts map[string]int) string {
	parts := strings.Split(path, ".")
	for i := len(parts) - 1; i > 0; i-- {
		prefix := strings.Join(parts[:i], ".")
		if c := counts[prefix]; c > 0 {
			return prefix + "[" + strconv.Itoa(c-1) + "]." + strings.Join(parts[i:], ".")
		}
	}
	return path
}

// record notes a key's position, and that of each of its parents not yet
// seen, so an error about a parent ("updates.periodc") can point at the first
// line that mentions it.
func (l *locator) record(key string, p position, valOff int) {
	if _, dup := l.keys[key]; !dup {
		l.keys[key] = p
		if valOff >= 0 {
			l.vals[key] = valOff
		}
	}
	for i := len(key) - 1; i > 0; i-- {
		if key[i] == '.' || key[i] == '[' {
			if _, seen := l.keys[key[:i]]; !seen {
				l.keys[key[:i]] = p
			}
		}
	}
}

// key returns the position of the first of keys that the scan found.
func (l *locator) key(keys ...string) (position, bool) {
	for _, k := range keys {
		if p, ok := l.keys[k]; ok {
			return p, true
		}
	}
	return position{}, false
}

// value returns the position of key's value, or of the first occurrence of
// the string lit within it when lit is not empty (a day in a days array).
func (l *locator) value(key, lit string) (position, bool) {
	off, ok := l.vals[key]
	if !ok {
		return position{}, false
	}
	if lit != "" {
		window := l.src[off:]
		if end := strings.IndexByte(window, ']'); end >= 0 {
			window = window[:end]
		}
		for _, q := range []string{strconv.Quote(lit), "'" + lit + "'"} {
			if i := strings.Index(window, q); i >= 0 {
				off += i
				break
			}
		}
	}
	return l.at(off), true
}

// at converts a byte offset into a line and column.
func (l *locator) at(off int) position {
	off = min(max(off, 0), len(l.src))
	line := 1 + strings.Count(l.src[:off], "\n")
	lineStart := strings.LastIndexByte(l.src[:off], '\n') + 1
	return position{line, off - lineStart + 1}
}

// splitKey splits a dotted TOML key into its parts, removing quotes and
// surrounding blanks. It returns nil for text that is not a key.
func splitKey(s string) []string {
	var parts []string
	s = strings.TrimSpace(s)
	for s != "" {
		var part string
		switch s[0] {
		case '"', '\'':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil
			}
			part, s = s[1:1+end], s[2+end:]
		default:
			end := strings.IndexAny(s, ". \t")
			if end < 0 {
				end = len(s)
			}
			part, s = s[:end], s[end:]
			for _, c := range part {
				if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
					return nil
				}
			}
			if part == "" {
				return nil
			}
		}
		parts = append(parts, part)
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		if s[0] != '.' {
			return nil
		}
		s = strings.TrimLeft(s[1:], " \t")
	}
	return parts
}

func joinKey(parts []string) string { return strings.Join(parts, ".") }
