package manifest

// This file lexes heredocs: @(TAG[:syntax][/escapes]) on one line, its text
// on the lines that follow, up to the line holding the end tag.

import (
	"regexp"
	"strings"
)

// heredocJump is where lexing resumes once the line holding heredoc
// headers ends: the text of those heredocs is skipped. lineEnd is the
// offset of the newline ending that line; jump is 0 when no heredoc is
// pending.
type heredocJump struct {
	hdLineEnd int
	hdJump    int
}

// jumpHeredocs skips the text of the heredocs opened on the line just
// ended, and reports whether it did.
func (lx *lexer) jumpHeredocs() bool {
	if lx.hdJump > 0 && lx.off >= lx.hdLineEnd {
		lx.off = min(max(lx.off, lx.hdJump), len(lx.src))
		lx.hdJump = 0
		return true
	}
	return false
}

// heredocSpec is Puppet's @(endtag[:syntax][/escapes]).
var heredocSpec = regexp.MustCompile(`^@\(([^:/\r\n)]+)(?::[ \t]*([a-z][a-zA-Z0-9_+]+)[ \t]*)?(?:/([\w$]*)[ \t]*)?\)$`)

// heredoc is one parsed header.
type heredoc struct {
	tag     string
	interp  bool          // "TAG": interpolates like a double-quoted string
	escapes map[byte]bool // enabled escapes; '\\' whenever any is
}

// lexHeredoc lexes the heredoc whose "@(" is at lx.off into a STRING or,
// when its tag is quoted, an interpolated DQ token.
func (lx *lexer) lexHeredoc(out *[]Token, p int32) {
	lineEnd := strings.IndexByte(lx.src[lx.off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(lx.src)
	} else {
		lineEnd += lx.off
	}
	closeAt := strings.IndexByte(lx.src[lx.off:lineEnd], ')')
	if closeAt < 0 {
		rest := lx.src[lx.off+2 : lineEnd]
		if len(rest) > 20 {
			rest = rest[:20]
		}
		lx.errs.Add(lx.posAt(p), "Unclosed parenthesis after '@(' followed by '%s'", strings.TrimRight(rest, "\r"))
		lx.advance(2)
		return
	}
	afterHeader := lx.off + closeAt + 1
	h, msg := parseHeredocSpec(lx.src[lx.off:afterHeader])
	if msg != "" {
		lx.errs.Add(lx.posAt(p), "%s", msg)
		lx.advance(closeAt + 1)
		*out = append(*out, span(STRING, p, 0, 0)) // no cascade of errors
		return
	}
	// The text starts on the next line, or after the text of the heredoc
	// before this one on the same line.
	start := lx.hdJump
	if start == 0 {
		if lineEnd >= len(lx.src) {
			lx.errs.Add(lx.posAt(p), "Heredoc without any following lines of text")
			lx.advance(closeAt + 1)
			*out = append(*out, span(STRING, p, 0, 0))
			return
		}
		lx.hdLineEnd = lineEnd
		start = lineEnd + 1
	}
	lx.hdJump = 0 // the text's own interpolations must not jump
	segs, next, ok := h.body(lx.src, start)
	if !ok {
		lx.errs.Add(lx.posAt(p), "Heredoc without end-tagged line")
		lx.off = len(lx.src)
		*out = append(*out, span(STRING, p, 0, 0))
		return
	}
	var t Token
	if h.interp {
		lx.off = start
		t = lx.heredocInterp(p, h, segs)
	} else {
		var b strings.Builder
		for _, s := range segs {
			b.WriteString(lx.src[s[0]:s[1]])
		}
		t = lx.decoded(STRING, p, lx.heredocEscapes(p, h, b.String()))
	}
	*out = append(*out, t)
	lx.off = afterHeader
	lx.hdJump = next
}

// parseHeredocSpec reads a header, returning Puppet's message for a bad one.
func parseHeredocSpec(spec string) (*heredoc, string) {
	m := heredocSpec.FindStringSubmatch(spec)
	if m == nil {
		return nil, "Invalid syntax in heredoc expected @(endtag[:syntax][/escapes])"
	}
	h := &heredoc{tag: strings.TrimSpace(m[1])}
	if len(h.tag) >= 2 && h.tag[0] == '"' && h.tag[len(h.tag)-1] == '"' {
		h.interp = true
		h.tag = strings.TrimSpace(h.tag[1 : len(h.tag)-1])
	}
	if h.tag == "" {
		return nil, "Heredoc with an empty endtag"
	}
	if strings.Contains(spec, "/") { // neither a tag nor a syntax holds '/'

		esc := m[3]
		if esc == "" {
			esc = "trnsuL$"
		}
		h.escapes = map[byte]bool{'\\': true}
		seen := map[byte]bool{}
		for i := 0; i < len(esc); i++ {
			e := esc[i]
			if seen[e] {
				return nil, "An escape char for @() may only appear once. Got '" + strings.Join(strings.Split(esc, ""), ", ") + "'"
			}
			seen[e] = true
			switch e {
			case 't', 'r', 'n', 's', 'u', '$', 'L':
				h.escapes[e] = true
			default:
				return nil, "Invalid heredoc escape char. Only t, r, n, s,  u, L, $ allowed. Got '" + string(e) + "'"
			}
		}
	}
	if m[2] != "" && (strings.HasPrefix(m[2], "+") || strings.HasSuffix(m[2], "+") || strings.Contains(m[2], "++")) {
		return nil, "Heredoc syntax specification has empty segment between '+' : '" + m[2] + "'"
	}
	return h, ""
}

// endLine matches Puppet's end line, WS* ('|' WS*)? ('-' WS*)? endtag WS*
// \r? (\n|$), which it finds anywhere in a line: the leftmost match wins,
// and the optional marks are tried as a regular expression tries them.
// It returns the whitespace before the marks and which marks were there.
func (h *heredoc) endLine(line string) (leading string, margin, trim, ok bool) {
	blanks := func(i int) int {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		return i
	}
	for start := 0; start < len(line); start++ {
		lead := blanks(start)
		for _, marks := range [4][2]bool{{true, true}, {true, false}, {false, true}, {false, false}} {
			i := lead
			if marks[0] {
				if i >= len(line) || line[i] != '|' {
					continue
				}
				i = blanks(i + 1)
			}
			if marks[1] {
				if i >= len(line) || line[i] != '-' {
					continue
				}
				i = blanks(i + 1)
			}
			if !strings.HasPrefix(line[i:], h.tag) {
				continue
			}
			switch line[blanks(i+len(h.tag)):] {
			case "", "\n", "\r\n", "\r":
				return line[start:lead], marks[0], marks[1], true
			}
		}
	}
	return "", false, false, false
}

// body finds the heredoc's text from start: it returns the pieces of the
// source that make the text (each line without its margin, the last
// without its line break when the end tag has '-'), the offset after the
// end line, and false when no line ends the heredoc.
func (h *heredoc) body(src string, start int) (segs [][2]int, next int, ok bool) {
	var lines [][2]int
	for ls := start; ls < len(src); {
		le := strings.IndexByte(src[ls:], '\n')
		if le < 0 {
			le = len(src)
		} else {
			le += ls + 1
		}
		leading, hasMargin, trim, ok := h.endLine(src[ls:le])
		if !ok {
			lines = append(lines, [2]int{ls, le})
			ls = le
			continue
		}
		margin := hasMargin && leading != ""
		for _, l := range lines {
			if margin && strings.HasPrefix(src[l[0]:l[1]], leading) {
				l[0] += len(leading)
			}
			segs = append(segs, l)
		}
		if trim && len(segs) > 0 { // '-': no line break after the last line
			last := &segs[len(segs)-1]
			if strings.HasSuffix(src[last[0]:last[1]], "\n") {
				last[1]--
				if last[1] > last[0] && src[last[1]-1] == '\r' {
					last[1]--
				}
			}
		}
		return segs, le, true
	}
	return nil, 0, false
}

// heredocEscapes decodes the enabled escapes of text (a heredoc's text
// without interpolation); others stay as written.
func (lx *lexer) heredocEscapes(p int32, h *heredoc, text string) string {
	if h.escapes == nil || !strings.Contains(text, `\`) {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] != '\\' || i+1 >= len(text) {
			b.WriteByte(text[i])
			continue
		}
		i += lx.heredocEscape(&b, p, h, text[i+1:])
	}
	return b.String()
}

// heredocEscape decodes the escape whose backslash comes just before rest
// and returns how many bytes of rest it used.
func (lx *lexer) heredocEscape(b *strings.Builder, p int32, h *heredoc, rest string) int {
	c := rest[0]
	switch {
	case !h.escapes[c] && !(h.escapes['L'] && (c == '\n' || c == '\r' && strings.HasPrefix(rest, "\r\n"))):
		b.WriteByte('\\')
		b.WriteByte(c)
	case c == 'n':
		b.WriteByte('\n')
	case c == 't':
		b.WriteByte('\t')
	case c == 'r':
		b.WriteByte('\r')
	case c == 's':
		b.WriteByte(' ')
	case c == '\n':
	case c == '\r':
		return 2
	case c == 'u':
		if r, n := decodeUnicode(rest[1:]); n > 0 {
			b.WriteRune(r)
			return 1 + n
		}
		lx.errs.Add(lx.posAt(p), "invalid unicode escape in heredoc: want \\uXXXX or \\u{X...}")
		b.WriteString(`\u`)
	default: // '\\' and '$'
		b.WriteByte(c)
	}
	return 1
}

// decodeUnicode reads XXXX or {X...} (1 to 6 hex digits) and returns the
// character and the bytes used, or 0 bytes when there is none.
func decodeUnicode(s string) (rune, int) {
	digits, used := "", 0
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 2 || end > 7 {
			return 0, 0
		}
		digits, used = s[1:end], end+1
	} else if len(s) >= 4 {
		digits, used = s[:4], 4
	} else {
		return 0, 0
	}
	var r rune
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		switch {
		case isDigit(c):
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	if r > 0x10FFFF || r >= 0xD800 && r <= 0xDFFF {
		return 0, 0
	}
	return r, used
}

// heredocInterp lexes the text of an interpolating heredoc, given as
// pieces of the source, into a token: literal text with its escapes
// decoded, and $var / ${expr} interpolations lexed where they stand in
// the source, so their positions are exact.
func (lx *lexer) heredocInterp(p int32, h *heredoc, segs [][2]int) Token {
	partBase, tokBase, spanBase := len(lx.partStack), len(lx.tokStack), len(lx.spans)
	defer func() {
		lx.partStack = pop(lx.partStack, partBase)
		lx.tokStack = lx.tokStack[:tokBase]
		lx.spans = lx.spans[:spanBase]
	}()
	var b strings.Builder
	litPos := int32(-1)
	flush := func() {
		if b.Len() > 0 {
			lx.partStack = append(lx.partStack, StrPart{Lit: b.String(), Off: litPos})
			b.Reset()
		}
		litPos = -1
	}
	end := 0
	if len(segs) > 0 {
		end = segs[len(segs)-1][1]
	}
	for i := 0; i < len(segs); i++ {
		pos := max(segs[i][0], lx.off)
		for pos < segs[i][1] {
			c := lx.src[pos]
			if litPos < 0 {
				litPos = int32(pos)
			}
			switch {
			case c == '\\' && h.escapes != nil && pos+1 < segs[i][1]:
				pos += 1 + lx.heredocEscape(&b, p, h, lx.src[pos+1:segs[i][1]])
				continue
			case c == '$' && pos+1 < len(lx.src) && (lx.src[pos+1] == '{' || startsInterpVar(lx.src[pos+1], byteAt(lx.src, pos+2))):
				flush()
				lx.off = pos
				var ok bool
				if lx.src[pos+1] == '{' {
					ok = lx.interpBraces()
				} else {
					ok = lx.interpVar()
				}
				if !ok || lx.off > end {
					if ok {
						lx.errs.Add(lx.posAt(int32(pos)), "unterminated ${ interpolation")
					}
					return lx.decoded(STRING, p, "")
				}
				pos = lx.off
				continue
			}
			b.WriteByte(c)
			pos++
		}
		lx.off = pos
	}
	flush()
	return lx.stringToken(p, partBase, tokBase, spanBase)
}

func byteAt(b string, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}
