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
// live in side tables filled by the lexer.
type texts struct {
	src   string
	strs  []string    // decoded strings and regular expressions
	parts [][]StrPart // the pieces of DQ tokens
}

// text returns the text of t: the name of a NAME, TYPE or VAR (without '$'),
// the decoded value of a STRING, the pattern of a REGEX, the literal of a
// NUMBER, the operator of a PUNCT.
func (x *texts) text(t *Token) string {
	if t.Aux > 0 && t.Kind != DQ {
		return x.strs[t.Aux-1]
	}
	return x.src[t.Start:t.End]
}

// span is a token whose text is the source bytes start:end.
func span(kind Kind, off int32, start, end int) Token {
	return Token{Kind: kind, Off: off, Start: int32(start), End: int32(end)}
}

// decoded is a token whose text s differs from the source.
func (lx *lexer) decoded(kind Kind, off int32, s string) Token {
	lx.tt.strs = append(lx.tt.strs, s)
	return Token{Kind: kind, Off: off, Aux: int32(len(lx.tt.strs))}
}

// dq is an interpolated string token.
func (lx *lexer) dq(off int32, parts []StrPart) Token {
	lx.tt.parts = append(lx.tt.parts, parts)
	return Token{Kind: DQ, Off: off, Aux: int32(len(lx.tt.parts))}
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

// Op names an operator or punctuation token; OpNone is the Op of every
// token that is not PUNCT.
type Op uint8

// Operators, in the order of puncts.
const (
	OpNone            Op = iota
	OpLLCollect          // <<|
	OpRRCollect          // |>>
	OpLCollect           // <|
	OpRCollect           // |>
	OpArrow              // ->
	OpNotifyArrow        // ~>
	OpBackArrow          // <-
	OpBackNotifyArrow    // <~
	OpFatArrow           // =>
	OpPlusArrow          // +>
	OpPlusAssign         // +=
	OpMinusAssign        // -=
	OpEq                 // ==
	OpNe                 // !=
	OpMatch              // =~
	OpNoMatch            // !~
	OpLe                 // <=
	OpGe                 // >=
	OpShl                // <<
	OpShr                // >>
	OpAtAt               // @@
	OpAtParen            // @(
	OpLt                 // <
	OpGt                 // >
	OpAssign             // =
	OpPlus               // +
	OpMinus              // -
	OpStar               // *
	OpSlash              // /
	OpPercent            // %
	OpNot                // !
	OpQuestion           // ?
	OpColon              // :
	OpComma              // ,
	OpSemicolon          // ;
	OpLBrace             // {
	OpRBrace             // }
	OpLParen             // (
	OpRParen             // )
	OpLBracket           // [
	OpRBracket           // ]
	OpPipe               // |
	OpAt                 // @
	OpDot                // .
)

// opTexts maps each Op to its text.
var opTexts = [...]string{OpLLCollect: "<<|", OpRRCollect: "|>>", OpLCollect: "<|", OpRCollect: "|>", OpArrow: "->", OpNotifyArrow: "~>", OpBackArrow: "<-", OpBackNotifyArrow: "<~", OpFatArrow: "=>", OpPlusArrow: "+>", OpPlusAssign: "+=", OpMinusAssign: "-=", OpEq: "==", OpNe: "!=", OpMatch: "=~", OpNoMatch: "!~", OpLe: "<=", OpGe: ">=", OpShl: "<<", OpShr: ">>", OpAtAt: "@@", OpAtParen: "@(", OpLt: "<", OpGt: ">", OpAssign: "=", OpPlus: "+", OpMinus: "-", OpStar: "*", OpSlash: "/", OpPercent: "%", OpNot: "!", OpQuestion: "?", OpColon: ":", OpComma: ",", OpSemicolon: ";", OpLBrace: "{", OpRBrace: "}", OpLParen: "(", OpRParen: ")", OpLBracket: "[", OpRBracket: "]", OpPipe: "|", OpAt: "@", OpDot: "."}

// String returns the operator as written.
func (o Op) String() string {
	if int(o) < len(opTexts) {
		return opTexts[o]
	}
	return "?"
}

// opOf returns the Op written as text, OpNone for anything else. It is on
// the lexer's hot path, hence the tables.
func opOf(text string) Op {
	switch len(text) {
	case 1:
		return ops1[text[0]]
	case 2:
		return ops2[text[0]][text[1]]
	case 3:
		switch text {
		case "<<|":
			return OpLLCollect
		case "|>>":
			return OpRRCollect
		}
	}
	return OpNone
}

// ops1 and ops2 index the one- and two-character operators by their bytes.
var ops1, ops2 = func() (*[256]Op, *[256][256]Op) {
	var one [256]Op
	var two [256][256]Op
	for o, t := range opTexts {
		switch len(t) {
		case 1:
			one[t[0]] = Op(o)
		case 2:
			two[t[0]][t[1]] = Op(o)
		}
	}
	return &one, &two
}()

// punct is a PUNCT token for the operator text at source offset off.
func punct(off int32, text string) Token {
	return Token{Kind: PUNCT, Op: opOf(text), Off: off, Start: off, End: off + int32(len(text))}
}

// puncts lists operators, longest first so that the first match wins.
var puncts = []string{
	"<<|", "|>>",
	"<|", "|>", "->", "~>", "<-", "<~", "=>", "+>", "+=", "-=", "==", "!=", "=~", "!~", "<=", ">=", "<<", ">>", "@@", "@(",
	"<", ">", "=", "+", "-", "*", "/", "%", "!", "?", ":", ",", ";", "{", "}", "(", ")", "[", "]", "|", "@", ".",
}

// singlePuncts maps a byte to its one-character operator; punctSecond marks
// bytes that may continue a longer operator.
var singlePuncts, punctSecond = func() ([256]string, [256]bool) {
	var single [256]string
	var second [256]bool
	for _, p := range puncts {
		if len(p) == 1 {
			single[p[0]] = p
		} else {
			for i := 1; i < len(p); i++ {
				second[p[i]] = true
			}
		}
	}
	return single, second
}()

type lexer struct {
	source *Source
	src    []byte
	text   string // src as a string: token texts are substrings of it
	off    int
	errs   *ErrorList
	tt     texts
	// lastKind and lastText describe the previous token at this nesting
	// level, which decides whether '/' starts a regular expression.
	lastKind Kind
	lastText string
	hasLast  bool
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

func newLexer(source *Source, src []byte, errs *ErrorList) *lexer {
	text := string(src)
	return &lexer{source: source, src: src, text: text, errs: errs, tt: texts{src: text}}
}

// checkUTF8 reports, at its position, the first byte of src that is not
// part of a UTF-8 encoded character, and whether there was one. A manifest
// must be UTF-8 throughout, comments included, like Puppet's.
func checkUTF8(source *Source, src []byte, errs *ErrorList) bool {
	if utf8.Valid(src) {
		return false
	}
	off := 0
	for off < len(src) {
		r, size := utf8.DecodeRune(src[off:])
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
func Lex(file string, src []byte, errs *ErrorList) []Token {
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
	default:
		op := lx.matchPunct()
		if op == "" {
			r, size := utf8.DecodeRune(lx.src[lx.off:])
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

// matchPunct returns the longest operator at the current offset, or "".
func (lx *lexer) matchPunct() string {
	rest := lx.src[lx.off:]
	if len(rest) == 1 || len(rest) > 1 && !punctSecond[rest[1]] {
		if op := singlePuncts[rest[0]]; op != "" {
			return op
		}
	}
	for _, cand := range puncts {
		if len(rest) >= len(cand) && string(rest[:len(cand)]) == cand {
			return cand
		}
	}
	return ""
}

func (lx *lexer) peekAt(n int) byte {
	if lx.off+n < len(lx.src) {
		return lx.src[lx.off+n]
	}
	return 0
}

func (lx *lexer) skipSpace() {
	for lx.off < len(lx.src) {
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
			end := strings.Index(lx.text[lx.off+2:], "*/")
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
	name := lx.text[start:lx.off]
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
	case NAME, TYPE, NUMBER, STRING, DQ, REGEX, VAR:
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

// lexSingle lexes a single-quoted string: only \\ and \' are escapes.
func (lx *lexer) lexSingle(out *[]Token, p int32) {
	// Fast path: no escapes and no newline, the text is a substring.
	for i := lx.off + 1; i < len(lx.src); i++ {
		c := lx.src[i]
		if c == '\'' {
			*out = append(*out, span(STRING, p, lx.off+1, i))
			lx.off = i + 1
			return
		}
		if c == '\\' || c == '\n' {
			break
		}
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
	lx.errs.Add(lx.posAt(p), "unterminated string")
	*out = append(*out, lx.decoded(STRING, p, b.String()))
}

// lexDouble lexes a double-quoted string with escapes and interpolation.
func (lx *lexer) lexDouble(out *[]Token, p int32) {
	// Fast path: no escapes, interpolation or newline.
	for i := lx.off + 1; i < len(lx.src); i++ {
		c := lx.src[i]
		if c == '"' {
			*out = append(*out, span(STRING, p, lx.off+1, i))
			lx.off = i + 1
			return
		}
		if c == '\\' || c == '$' || c == '\n' {
			break
		}
	}
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
			lx.partStack = append(lx.partStack, StrPart{Lit: lx.text[litPos:lx.off], Off: litPos})
		}
	}
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == '"':
			flush()
			lx.advance(1)
			var t Token
			parts := lx.partStack[partBase:]
			if len(parts) == 0 {
				t = span(STRING, p, 0, 0)
			} else if len(parts) == 1 && parts[0].Lit != "" {
				t = lx.decoded(STRING, p, parts[0].Lit)
			} else {
				t = lx.dq(p, lx.finishParts(parts, tokBase, spanBase))
			}
			popped()
			*out = append(*out, t)
			return
		case c == '\\':
			if !escaped {
				b.WriteString(lx.text[litPos:lx.off])
				escaped = true
			}
			lx.escape(&b)
		case c == '$' && lx.peekAt(1) == '{':
			flush()
			ep := lx.here()
			lx.advance(2)
			start := len(lx.tokStack)
			lx.hasLast = false
			if !lx.run(&lx.tokStack, 0) {
				lx.errs.Add(lx.posAt(ep), "unterminated ${ interpolation")
				popped()
				return
			}
			// The closing '}' ends the embedded expression.
			lx.tokStack = append(lx.tokStack, span(EOF, int32(lx.off-1), lx.off-1, lx.off))
			lx.spans = append(lx.spans, start, len(lx.tokStack))
			lx.partStack = append(lx.partStack, StrPart{Off: ep})
			litPos = lx.here()
		case c == '$' && (isLower(lx.peekAt(1)) || lx.peekAt(1) == '_' || isDigit(lx.peekAt(1)) ||
			lx.peekAt(1) == ':' && lx.peekAt(2) == ':'):
			flush()
			ep := lx.here()
			start := len(lx.tokStack)
			lx.lexVar(&lx.tokStack, ep)
			// "$x[1]" accesses like "${x[1]}".
			for lx.peekAt(0) == '[' {
				bp := lx.here()
				lx.advance(1)
				lx.tokStack = append(lx.tokStack, punct(bp, "["))
				if !lx.runUntilBracket(&lx.tokStack) {
					lx.errs.Add(lx.posAt(bp), "unterminated [ in string interpolation")
					popped()
					return
				}
			}
			lx.tokStack = append(lx.tokStack, Token{Kind: EOF, Off: lx.here()})
			lx.spans = append(lx.spans, start, len(lx.tokStack))
			lx.partStack = append(lx.partStack, StrPart{Off: ep})
			litPos = lx.here()
		default:
			if escaped {
				b.WriteByte(c)
			}
			lx.advance(1)
		}
	}
	lx.errs.Add(lx.posAt(p), "unterminated string")
	flush()
	t := lx.dq(p, lx.finishParts(lx.partStack[partBase:], tokBase, spanBase))
	popped()
	*out = append(*out, t)
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
			*out = append(*out, punct(p, lx.text[p:p+1]))
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
		end := strings.IndexByte(lx.text[lx.off:min(lx.off+10, len(lx.src))], '}')
		if end < 2 {
			lx.errs.Add(lx.posAt(p), "invalid unicode escape: want \\u{X} with 1 to 6 hex digits")
			return
		}
		hex = lx.text[lx.off+1 : lx.off+end]
		lx.advance(end + 1)
	} else {
		if lx.off+4 > len(lx.src) {
			lx.errs.Add(lx.posAt(p), "invalid unicode escape: want \\uXXXX")
			lx.advance(len(lx.src) - lx.off)
			return
		}
		hex = lx.text[lx.off : lx.off+4]
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
