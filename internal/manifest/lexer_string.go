package manifest

// This file lexes quoted strings: escapes, and the interpolations of
// double-quoted ones.

import (
	"strings"
	"unicode/utf8"
)

// plainString is the fast path of both string kinds: when the string at
// lx.off, opened by quote, ends before any escape, newline or (with
// dollar) '$', its text is a substring of the source and becomes the token
// without decoding. It reports whether it lexed the string.
func (lx *lexer) plainString(out *[]Token, p int32, quote byte, dollar bool) bool {
	for i := lx.off + 1; i < len(lx.src); i++ {
		switch c := lx.src[i]; {
		case c == quote:
			*out = append(*out, span(STRING, p, lx.off+1, i))
			lx.off = i + 1
			return true
		case c == '\\' || c == '\n' || dollar && c == '$':
			return false
		}
	}
	return false
}

// lexSingle lexes a single-quoted string: only \\ and \' are escapes.
func (lx *lexer) lexSingle(out *[]Token, p int32) {
	if lx.plainString(out, p, '\'', false) {
		return
	}
	lx.advance(1)
	var b strings.Builder
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == '\'':
			lx.advance(1)
			*out = append(*out, lx.decoded(STRING, p, b.String()))
			return
		case c == '\\' && (lx.peekAt(1) == '\\' || lx.peekAt(1) == '\''):
			b.WriteByte(lx.peekAt(1))
			lx.advance(2)
		default:
			b.WriteByte(c)
			lx.advance(1)
		}
	}
	if !lx.tooDeep {
		lx.errs.Add(lx.posAt(p), "unterminated string")
	}
	*out = append(*out, lx.decoded(STRING, p, b.String()))
}

// lexDouble lexes a double-quoted string with escapes and interpolation.
func (lx *lexer) lexDouble(out *[]Token, p int32) {
	if lx.plainString(out, p, '"', true) {
		return
	}
	if lx.strDepth >= maxDepth {
		// Nesting this deep is no manifest: stop lexing (the rest of
		// the input would only yield noise) rather than recurse further.
		lx.errs.Add(lx.posAt(p), "string interpolation nested too deeply (more than %d levels)", maxDepth)
		lx.off = len(lx.src)
		lx.tooDeep = true
		return
	}
	lx.strDepth++
	defer func() { lx.strDepth-- }()
	lx.advance(1)
	// When this string sits in an interpolation, out is the token stack
	// itself, so the stacks are popped before the token is appended.
	partBase, tokBase, spanBase := len(lx.partStack), len(lx.tokStack), len(lx.spans)
	popped := func() {
		lx.partStack = pop(lx.partStack, partBase)
		lx.tokStack = lx.tokStack[:tokBase]
		lx.spans = lx.spans[:spanBase]
	}
	// A literal piece is the source bytes from litPos on until an escape
	// is met; from then on it is assembled in b.
	var b strings.Builder
	litPos := lx.here()
	escaped := false
	flush := func() {
		switch {
		case escaped:
			// An escape may decode to nothing (a bad \u at the end of
			// the input): an empty piece would read as an interpolation.
			if b.Len() > 0 {
				lx.partStack = append(lx.partStack, StrPart{Lit: b.String(), Off: litPos})
			}
			b.Reset()
			escaped = false
		case lx.here() > litPos:
			lx.partStack = append(lx.partStack, StrPart{Lit: lx.src[litPos:lx.off], Off: litPos})
		}
	}
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == '"':
			flush()
			lx.advance(1)
			t := lx.stringToken(p, partBase, tokBase, spanBase)
			popped()
			*out = append(*out, t)
			return
		case c == '\\':
			if !escaped {
				b.WriteString(lx.src[litPos:lx.off])
				escaped = true
			}
			lx.escape(&b)
		case c == '$' && lx.peekAt(1) == '{':
			flush()
			if !lx.interpBraces() {
				popped()
				return
			}
			litPos = lx.here()
		case c == '$' && startsInterpVar(lx.peekAt(1), lx.peekAt(2)):
			flush()
			if !lx.interpVar() {
				popped()
				return
			}
			litPos = lx.here()
		default:
			if escaped {
				b.WriteByte(c)
			}
			lx.advance(1)
		}
	}
	if !lx.tooDeep {
		lx.errs.Add(lx.posAt(p), "unterminated string")
	}
	flush()
	t := lx.dq(p, lx.finishParts(lx.partStack[partBase:], tokBase, spanBase))
	popped()
	*out = append(*out, t)
}

// stringToken is the token of the string at p whose pieces were pushed
// from the given stack heights on: a STRING when it has no interpolation.
func (lx *lexer) stringToken(p int32, partBase, tokBase, spanBase int) Token {
	parts := lx.partStack[partBase:]
	switch {
	case len(parts) == 0:
		return span(STRING, p, 0, 0)
	case len(parts) == 1 && parts[0].Lit != "":
		return lx.decoded(STRING, p, parts[0].Lit)
	}
	return lx.dq(p, lx.finishParts(parts, tokBase, spanBase))
}

// startsInterpVar reports whether the bytes after a '$' in a string start
// an interpolated variable.
func startsInterpVar(c1, c2 byte) bool {
	return isLower(c1) || c1 == '_' || isDigit(c1) || c1 == ':' && c2 == ':'
}

// interpBraces lexes the ${expression} at lx.off onto the token stack and
// pushes its piece; false (reported) when it is not closed.
func (lx *lexer) interpBraces() bool {
	ep := lx.here()
	lx.advance(2)
	start := len(lx.tokStack)
	lx.hasLast = false
	if !lx.run(&lx.tokStack, 0) {
		if !lx.tooDeep {
			lx.errs.Add(lx.posAt(ep), "unterminated ${ interpolation")
		}
		return false
	}
	// The closing '}' ends the embedded expression.
	lx.tokStack = append(lx.tokStack, span(EOF, int32(lx.off-1), lx.off-1, lx.off))
	lx.spans = append(lx.spans, start, len(lx.tokStack))
	lx.partStack = append(lx.partStack, StrPart{Off: ep})
	return true
}

// interpVar lexes the $var or $var[...]... at lx.off onto the token stack
// and pushes its piece; false (reported) when a '[' is not closed.
func (lx *lexer) interpVar() bool {
	ep := lx.here()
	start := len(lx.tokStack)
	lx.lexVar(&lx.tokStack, ep)
	// "$x[1]" accesses like "${x[1]}".
	for lx.peekAt(0) == '[' {
		bp := lx.here()
		lx.advance(1)
		lx.tokStack = append(lx.tokStack, punct(bp, "["))
		if !lx.runUntilBracket(&lx.tokStack) {
			if !lx.tooDeep {
				lx.errs.Add(lx.posAt(bp), "unterminated [ in string interpolation")
			}
			return false
		}
	}
	lx.tokStack = append(lx.tokStack, Token{Kind: EOF, Off: lx.here()})
	lx.spans = append(lx.spans, start, len(lx.tokStack))
	lx.partStack = append(lx.partStack, StrPart{Off: ep})
	return true
}

// finishParts copies the pieces of one string off the stacks into exactly
// sized slices: one for the pieces, one for all their tokens. Pieces with
// tokens are the ones with an empty Lit; their tokens are the spans pushed
// from spanBase on, in order.
func (lx *lexer) finishParts(stacked []StrPart, tokBase, spanBase int) []StrPart {
	parts := append([]StrPart(nil), stacked...)
	toks := append([]Token(nil), lx.tokStack[tokBase:]...)
	spans := lx.spans[spanBase:]
	for i := range parts {
		if parts[i].Lit == "" {
			start, end := spans[0]-tokBase, spans[1]-tokBase
			parts[i].Tokens = toks[start:end:end]
			spans = spans[2:]
		}
	}
	return parts
}

// runUntilBracket lexes tokens up to and including the ']' matching an
// already consumed '['.
func (lx *lexer) runUntilBracket(out *[]Token) bool {
	depth := 0
	for {
		n := len(*out)
		if lx.off >= len(lx.src) || lx.src[lx.off] == '"' && depth == 0 {
			return false
		}
		// Lex exactly one token using the general loop on a one-token budget.
		lx.skipSpace()
		if lx.off >= len(lx.src) {
			return false
		}
		c := lx.src[lx.off]
		p := lx.here()
		switch {
		case c == '$':
			lx.lexVar(out, p)
		case c == '\'':
			lx.lexSingle(out, p)
		case c == '"':
			lx.lexDouble(out, p)
		case isDigit(c):
			lx.lexNumber(out, p)
		case isLower(c) || isUpper(c) || c == '_':
			lx.lexWord(out, p)
		case c == '[' || c == ']' || c == ',' || c == '-':
			lx.advance(1)
			*out = append(*out, punct(p, lx.src[p:p+1]))
		default:
			return false
		}
		if len(*out) > n && (*out)[len(*out)-1].Kind == PUNCT {
			switch lx.tt.text(&(*out)[len(*out)-1]) {
			case "[":
				depth++
			case "]":
				if depth == 0 {
					return true
				}
				depth--
			}
		}
	}
}

// escape decodes one backslash escape in a double-quoted string.
func (lx *lexer) escape(b *strings.Builder) {
	p := lx.here()
	n := lx.peekAt(1)
	switch n {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 's':
		b.WriteByte(' ')
	case '\\', '"', '\'', '$':
		b.WriteByte(n)
	case '\n':
		// A backslash before a newline continues the line.
	case 'u':
		lx.advance(2)
		lx.unicode(b, p)
		return
	case 0:
		b.WriteByte('\\')
		lx.advance(1)
		return
	default:
		// Puppet keeps unknown escapes as written.
		b.WriteByte('\\')
		b.WriteByte(n)
	}
	lx.advance(2)
}

// unicode decodes \uXXXX or \u{X...} (the "\u" already consumed).
func (lx *lexer) unicode(b *strings.Builder, p int32) {
	var hex string
	if lx.peekAt(0) == '{' {
		end := strings.IndexByte(lx.src[lx.off:min(lx.off+10, len(lx.src))], '}')
		if end < 2 {
			lx.errs.Add(lx.posAt(p), "invalid unicode escape: want \\u{X} with 1 to 6 hex digits")
			return
		}
		hex = lx.src[lx.off+1 : lx.off+end]
		lx.advance(end + 1)
	} else {
		if lx.off+4 > len(lx.src) {
			lx.errs.Add(lx.posAt(p), "invalid unicode escape: want \\uXXXX")
			lx.advance(len(lx.src) - lx.off)
			return
		}
		hex = lx.src[lx.off : lx.off+4]
		lx.advance(4)
	}
	var r rune
	for i := 0; i < len(hex); i++ {
		c := hex[i]
		var d byte
		switch {
		case isDigit(c):
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			lx.errs.Add(lx.posAt(p), "invalid unicode escape %q", "\\u"+hex)
			return
		}
		r = r*16 + rune(d)
	}
	if !utf8.ValidRune(r) || len(hex) > 6 {
		lx.errs.Add(lx.posAt(p), "invalid unicode escape %q", "\\u"+hex)
		return
	}
	b.WriteRune(r)
}
