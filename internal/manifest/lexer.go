package manifest

import (
	"strings"
	"unicode/utf8"
)

// Kind classifies a token.
type Kind uint8

// Token kinds.
const (
	EOF    Kind = iota
	NAME        // bare lower-case word, possibly qualified (foo::bar); keywords are NAMEs too
	TYPE        // capitalized word (Exec, Foo::Bar)
	VAR         // $name; its text is the name without '$'
	STRING      // a string without interpolation; its text is the decoded value
	DQ          // a double-quoted string with interpolation; Parts holds the pieces
	NUMBER      // its text is the literal as written
	REGEX       // /.../; its text is the pattern
	PUNCT       // operator or punctuation; its text is the operator
)

var kindNames = [...]string{EOF: "end of file", NAME: "name", TYPE: "type name", VAR: "variable",
	STRING: "string", DQ: "string", NUMBER: "number", REGEX: "regular expression", PUNCT: "punctuation"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "token"
}

// Token is one lexical token: a small struct without pointers, so that
// lexing writes no pointers and the token buffer is never scanned by the
// garbage collector. Its position is the byte offset Off, turned into a line
// and column only when needed (see Source); its text is the source bytes
// Start:End, or for strings whose escapes were decoded and for interpolated
// strings an entry (Aux, 1-based) in the lexer's side tables (see texts).
type Token struct {
	Kind Kind
	// Space reports whitespace or a comment right before the token; a '['
	// after space starts an array rather than an access, as in Puppet.
	Space bool
	// Op is the operator of a PUNCT token (OpNone for other kinds), so the
	// parser compares kinds, not strings.
	Op         Op
	Off        int32 // byte offset of the token in the source
	Start, End int32 // the token's text in the source, when Aux is 0
	Aux        int32 // 1-based index into texts.strs (decoded) or texts.parts (DQ)
}

// texts resolves token texts: most are substrings of the source, the rest
// live in side tables filled by the lexer. Aux numbers entries from the
// start of the file; entries no token refers to any more are dropped from
// the front of the tables (see drop), and the bases count them.
type texts struct {
	src       string
	strs      []string    // decoded strings and regular expressions
	parts     [][]StrPart // the pieces of DQ tokens
	strsBase  int32       // entries dropped from the front of strs
	partsBase int32       // entries dropped from the front of parts
}

// text returns the text of t: the name of a NAME, TYPE or VAR (without '$'),
// the decoded value of a STRING, the pattern of a REGEX, the literal of a
// NUMBER, the operator of a PUNCT.
func (x *texts) text(t *Token) string {
	if t.Aux > 0 && t.Kind != DQ {
		return x.strs[t.Aux-1-x.strsBase]
	}
	return x.src[t.Start:t.End]
}

// partsOf returns the pieces of the DQ token t.
func (x *texts) partsOf(t *Token) []StrPart {
	return x.parts[t.Aux-1-x.partsBase]
}

// dropBefore forgets the entries of the side tables before strs and parts
// (counted from the file's start), which no token left refers to.
func (x *texts) dropBefore(strs, parts int32) {
	x.strs = dropFront(x.strs, int(strs-x.strsBase))
	x.strsBase = strs
	x.parts = dropFront(x.parts, int(parts-x.partsBase))
	x.partsBase = parts
}

// dropFront removes the first n elements of list, in place.
func dropFront[T any](list []T, n int) []T {
	if n == 0 {
		return list
	}
	k := copy(list, list[n:])
	clear(list[k:])
	return list[:k]
}

// span is a token whose text is the source bytes start:end.
func span(kind Kind, off int32, start, end int) Token {
	return Token{Kind: kind, Off: off, Start: int32(start), End: int32(end)}
}

// decoded is a token whose text s differs from the source.
func (lx *lexer) decoded(kind Kind, off int32, s string) Token {
	lx.tt.strs = append(lx.tt.strs, s)
	return Token{Kind: kind, Off: off, Aux: lx.tt.strsBase + int32(len(lx.tt.strs))}
}

// dq is an interpolated string token.
func (lx *lexer) dq(off int32, parts []StrPart) Token {
	lx.tt.parts = append(lx.tt.parts, parts)
	return Token{Kind: DQ, Off: off, Aux: lx.tt.partsBase + int32(len(lx.tt.parts))}
}

// StrPart is one piece of an interpolated string: either literal text, or the
// tokens of an embedded expression ($var, $var[...] or ${...}).
type StrPart struct {
	Lit    string
	Tokens []Token // nil for a literal piece
	Off    int32
}

// describe renders a token for error messages.
func (x *texts) describe(t *Token) string {
	switch t.Kind {
	case EOF:
		if text := x.text(t); text != "" {
			return "'" + text + "'"
		}
		return "end of file"
	case VAR:
		return "'$" + x.text(t) + "'"
	case STRING, DQ:
		return "string"
	case REGEX:
		return "regular expression"
	}
	return "'" + x.text(t) + "'"
}

type lexer struct {
	source *Source
	src    string // token texts are substrings of it
	off    int
	errs   *ErrorList
	tt     texts
	// lastKind and lastText describe the previous token at this nesting
	// level, which decides whether '/' starts a regular expression.
	lastKind Kind
	lastText string
	hasLast  bool
	heredocJump
	// strDepth counts the interpolated strings being lexed, one inside the
	// other ("${"${x}"}"), which the lexer handles by recursion.
	strDepth int
	tooDeep  bool // lexing stopped at nesting too deep
	nest     int  // open ( [ { outside strings
	lexStacks
}

// lexStacks collect the pieces of interpolated strings and their tokens (a
// string nested in an interpolation pushes above its enclosing one and pops
// before it continues); spans holds the start and end of each piece's
// tokens on tokStack. They are empty between strings, so parses reuse them.
type lexStacks struct {
	partStack []StrPart
	tokStack  []Token
	spans     []int
}

func newLexer(source *Source, src string, errs *ErrorList) *lexer {
	// A UTF-8 byte-order mark at the start is skipped, as Puppet skips it.
	return &lexer{source: source, src: src, errs: errs, tt: texts{src: src}, off: len(src) - len(strings.TrimPrefix(src, "\ufeff"))}
}

// checkUTF8 reports, at its position, the first byte of src that is not
// part of a UTF-8 encoded character, and whether there was one. A manifest
// must be UTF-8 throughout, comments included, like Puppet's.
func checkUTF8(source *Source, src string, errs *ErrorList) bool {
	if utf8.ValidString(src) {
		return false
	}
	off := 0
	for off < len(src) {
		r, size := utf8.DecodeRuneInString(src[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	errs.Add(source.Pos(off), "invalid UTF-8: byte 0x%02x is not part of a UTF-8 character (manifests must be UTF-8)", src[off])
	return true
}

// Lex splits src into tokens, ending with an EOF token. Problems are
// appended to errs; lexing always continues to the end of the input, so
// every lexical error is reported.
func Lex(file string, srcBytes []byte, errs *ErrorList) []Token {
	src := string(srcBytes)
	source := NewSource(file, src)
	if len(src) > maxSource {
		errs.Add(source.Pos(0), "file too large: %d bytes (the limit is %d)", len(src), maxSource)
		return []Token{{Kind: EOF}}
	}
	if checkUTF8(source, src, errs) {
		return []Token{{Kind: EOF}}
	}
	lx := newLexer(source, src, errs)
	toks := make([]Token, 0, len(src)/4+1)
	lx.run(&toks, -1)
	return append(toks, Token{Kind: EOF, Off: lx.here()})
}

// here is the current offset, as stored in tokens.
func (lx *lexer) here() int32 { return int32(lx.off) }

// posAt is the position of byte offset off, for error messages.
func (lx *lexer) posAt(off int32) Pos { return lx.source.Pos(int(off)) }

func (lx *lexer) advance(n int) {
	lx.off = min(lx.off+n, len(lx.src))
}

// run lexes tokens into *out. With closeDepth >= 0 it lexes the inside of a
// ${...} interpolation and stops after the '}' that closes it, returning
// true; at EOF it returns false.
func (lx *lexer) run(out *[]Token, closeDepth int) bool {
	depth := 0
	for {
		closed, eof := lx.step(out, closeDepth, &depth)
		if closed {
			return true
		}
		if eof {
			return false
		}
	}
}

// step lexes at most one token into *out (none after a comment-only stretch
// or an invalid character). closed reports the '}' ending an interpolation;
// eof the end of input.
func (lx *lexer) step(out *[]Token, closeDepth int, depth *int) (closed, eof bool) {
	before := lx.off
	lx.skipSpace()
	if lx.off >= len(lx.src) {
		return false, true
	}
	c := lx.src[lx.off]
	p := lx.here()
	n := len(*out)
	spaced := lx.off != before
	switch {
	case c == '$':
		lx.lexVar(out, p)
	case c == '\'':
		lx.lexSingle(out, p)
	case c == '"':
		lx.lexDouble(out, p)
	case isDigit(c):
		lx.lexNumber(out, p)
	case isLower(c) || c == '_' || c == ':' && lx.peekAt(1) == ':' && (isLower(lx.peekAt(2)) || isUpper(lx.peekAt(2))):
		lx.lexWord(out, p)
	case isUpper(c):
		lx.lexWord(out, p)
	case c == '/' && lx.regexAcceptable() && lx.lexRegex(out, p):
	case c == '@' && lx.peekAt(1) == '(':
		lx.lexHeredoc(out, p)
	default:
		op := lx.matchPunct()
		if op == "" {
			r, size := utf8.DecodeRuneInString(lx.src[lx.off:])
			if r == utf8.RuneError && size <= 1 {
				lx.errs.Add(lx.posAt(p), "invalid byte 0x%02x", c)
				size = 1
			} else {
				lx.errs.Add(lx.posAt(p), "unexpected character %q", r)
			}
			lx.advance(size)
			return false, false
		}
		lx.advance(len(op))
		if closeDepth >= 0 {
			switch op {
			case "{":
				*depth++
			case "}":
				if *depth == 0 {
					return true, false
				}
				*depth--
			}
		}
		switch op {
		case "(", "[", "{":
			if lx.nest++; lx.nest > maxDepth {
				// Stop here: the parser would refuse this nesting anyway,
				// and the rest of the input would only yield noise.
				lx.errs.Add(lx.posAt(p), "expression nested too deeply (more than %d levels)", maxDepth)
				lx.off = len(lx.src)
				lx.tooDeep = true
				return false, true
			}
		case ")", "]", "}":
			lx.nest = max(lx.nest-1, 0)
		}
		*out = append(*out, punct(p, op))
	}
	if len(*out) > n {
		if spaced {
			(*out)[n].Space = true
		}
		last := &(*out)[len(*out)-1]
		lx.lastKind, lx.lastText, lx.hasLast = last.Kind, lx.tt.text(last), true
	}
	return false, false
}

func (lx *lexer) peekAt(n int) byte {
	if lx.off+n < len(lx.src) {
		return lx.src[lx.off+n]
	}
	return 0
}

func (lx *lexer) skipSpace() {
	for lx.off < len(lx.src) {
		if lx.jumpHeredocs() {
			continue
		}
		c := lx.src[lx.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			lx.off++
		case c == '#':
			for lx.off < len(lx.src) && lx.src[lx.off] != '\n' {
				lx.off++
			}
		case c == '/' && lx.peekAt(1) == '*':
			p := lx.here()
			end := strings.Index(lx.src[lx.off+2:], "*/")
			if end < 0 {
				lx.errs.Add(lx.posAt(p), "unterminated /* comment")
				lx.advance(len(lx.src) - lx.off)
				return
			}
			lx.advance(end + 4)
		default:
			return
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isWord(c byte) bool  { return isLower(c) || isUpper(c) || isDigit(c) || c == '_' }

// lexWord lexes a NAME or TYPE, including :: qualified forms.
func (lx *lexer) lexWord(out *[]Token, p int32) {
	start := lx.off
	upper := false
	for {
		if lx.peekAt(0) == ':' && lx.peekAt(1) == ':' {
			c := lx.peekAt(2)
			if !(isLower(c) || isUpper(c) || c == '_') {
				break
			}
			lx.off += 2
		}
		c := lx.peekAt(0)
		if !(isLower(c) || isUpper(c) || c == '_') {
			break
		}
		if lx.off == start || lx.off == start+2 && lx.src[start] == ':' {
			upper = isUpper(c)
		}
		for lx.off < len(lx.src) && isWord(lx.src[lx.off]) {
			lx.off++
		}
	}
	kind := NAME
	if upper {
		kind = TYPE
	}
	*out = append(*out, span(kind, p, start, lx.off))
}

// lexVar lexes $name, $::name, $a::b or $0.
func (lx *lexer) lexVar(out *[]Token, p int32) {
	lx.off++ // '$'
	start := lx.off
	if isDigit(lx.peekAt(0)) {
		for lx.off < len(lx.src) && isDigit(lx.src[lx.off]) {
			lx.off++
		}
	} else {
		for {
			if lx.peekAt(0) == ':' && lx.peekAt(1) == ':' {
				lx.off += 2
			}
			c := lx.peekAt(0)
			if !(isLower(c) || isUpper(c) || c == '_' || isDigit(c)) {
				break
			}
			for lx.off < len(lx.src) && isWord(lx.src[lx.off]) {
				lx.off++
			}
		}
	}
	name := lx.src[start:lx.off]
	if name == "" || strings.HasSuffix(name, "::") {
		lx.errs.Add(lx.posAt(p), "invalid variable name '$%s'", name)
	}
	*out = append(*out, span(VAR, p, start, lx.off))
}

func (lx *lexer) lexNumber(out *[]Token, p int32) {
	start := lx.off
	if lx.peekAt(0) == '0' && (lx.peekAt(1) == 'x' || lx.peekAt(1) == 'X') {
		lx.off += 2
	}
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		if isWord(c) || c == '.' && isDigit(lx.peekAt(1)) {
			if (c == 'e' || c == 'E') && (lx.peekAt(1) == '-' || lx.peekAt(1) == '+') {
				lx.off++
			}
			lx.off++
			continue
		}
		break
	}
	*out = append(*out, span(NUMBER, p, start, lx.off))
}

// regexAcceptable reports whether a '/' after the last token starts a regular
// expression rather than a division, following Puppet's rule: not after
// something that ends a value.
func (lx *lexer) regexAcceptable() bool {
	if !lx.hasLast {
		return true
	}
	switch lx.lastKind {
	case NAME:
		return lx.lastText == "node" // node /regex/ { }
	case TYPE, NUMBER, STRING, DQ, REGEX, VAR:
		return false
	case PUNCT:
		switch lx.lastText {
		case ")", "]", "|>", "|>>":
			return false
		}
	}
	return true
}

// lexRegex lexes /pattern/ on one line; it returns false (consuming nothing)
// when there is no closing slash, so the '/' is a division.
func (lx *lexer) lexRegex(out *[]Token, p int32) bool {
	var b strings.Builder
	unescaped := false // whether the pattern differs from the source
	for i := lx.off + 1; i < len(lx.src); i++ {
		c := lx.src[i]
		switch c {
		case '\n':
			return false
		case '\\':
			if i+1 < len(lx.src) && lx.src[i+1] == '/' {
				unescaped = true
				b.WriteByte('/')
				i++
				continue
			}
			if i+1 < len(lx.src) && lx.src[i+1] != '\n' {
				b.WriteByte(c)
				b.WriteByte(lx.src[i+1])
				i++
				continue
			}
			b.WriteByte(c)
		case '/':
			if unescaped {
				*out = append(*out, lx.decoded(REGEX, p, b.String()))
			} else {
				*out = append(*out, span(REGEX, p, lx.off+1, i))
			}
			lx.off = i + 1
			return true
		default:
			b.WriteByte(c)
		}
	}
	return false
}
