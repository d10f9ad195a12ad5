package manifest

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// maxErrors bounds the errors collected from one file; past it parsing stops.
const maxErrors = 200

// maxDepth bounds expression nesting so hostile input cannot exhaust the stack.
const maxDepth = 400

// Functions lists the functions the language supports; calling any other
// function is an "unsupported" error.
var Functions = map[string]bool{
	"include": true, "require": true, "contain": true, "realize": true,
	"each": true, "map": true, "filter": true, "fail": true,
}

// statementFunctions may be called without parentheses: include foo, bar.
var statementFunctions = map[string]bool{
	"include": true, "require": true, "contain": true, "realize": true, "fail": true,
}

// keywords cannot be used as bare words.
var keywords = map[string]bool{
	"and": true, "or": true, "in": true, "if": true, "elsif": true, "else": true, "unless": true,
	"case": true, "default": true, "class": true, "define": true, "node": true, "true": true,
	"false": true, "undef": true, "inherits": true, "function": true, "type": true,
	"attr": true, "private": true,
}

// buffers are a parse's transient memory, kept in parseBufs for reuse by
// later parses: the token buffer, the lexer's stacks and the arena, whose
// chunks are handed to the tree and dropped from it after each parse while
// its scratch stacks are kept.
type buffers struct {
	toks  []Token
	marks []mark
	lexer lexStacks
	a     arena
}

var parseBufs = sync.Pool{New: func() any { return new(buffers) }}

// maxPooledTokens bounds the token buffer kept for reuse (10 MB), so that
// one huge statement does not keep its tokens' memory alive after its
// parse.
const maxPooledTokens = 1 << 19

// rebaseAt is how many parsed tokens the buffer holds at most between
// top-level statements while the file is lexed as it is parsed: past it,
// they are dropped.
const rebaseAt = 1 << 10

// lexAhead is how many tokens the lexer reads at a time while the file is
// lexed as it is parsed: lexing in runs keeps each loop's code and data in
// the processor's caches, as lexing a whole file first does.
const lexAhead = 256

// maxLexedWhole is the largest file ParseFile lexes whole before parsing
// it: its tokens, about 5 bytes per byte of source, are a passing cost
// next to the tree ParseFile returns (twice as large), and lexing first
// lets the tree's chunks be sized exactly and the collector run less
// often (the pooled token buffer keeps the heap larger). A larger file,
// and every file ParseEach parses, is lexed as it is parsed.
const maxLexedWhole = 4 << 20

// bailout unwinds the parser to the enclosing statement after an error.
type bailout struct{}

type parser struct {
	src     *Source
	tt      *texts
	toks    []Token // tokens lexed and not yet dropped; the file's end with EOF
	i       int     // index of the current token
	errs    *ErrorList
	depth   int
	noBrace bool // while parsing a condition, `name {` does not start a resource
	a       *arena

	// lx lexes the file as the parser asks for tokens; nil once it has
	// reached the end, and in parsers of interpolated expressions, whose
	// tokens are all there from the start.
	lx *lexer
	// base is how many of the file's tokens were dropped from the front
	// of toks.
	base int
	// marks are, while the file is lexed as it is parsed, the sizes of
	// the side tables before each token of toks was lexed: what the
	// tokens dropped no longer need (see rebase).
	marks []mark
	f     *fileParse
}

// mark is the sizes of the side tables (counted from the file's start)
// before a token was lexed.
type mark struct{ strs, parts int32 }

// fileParse is what the parsers of one file (its own and those of its
// interpolated expressions) share.
type fileParse struct {
	root *parser // the parser of the file
	// lexErrs are the lexer's errors, kept apart from the parser's: input
	// nested too deeply for the lexer is reported by the lexer alone.
	lexErrs ErrorList
	// errTok holds the index (from the file's start) of the token being
	// lexed when each lexer error was found: the lexer errors that count
	// against maxErrors are those up to the token the parser is at,
	// however far ahead the lexer has read.
	errTok []int32
	// emit, when set, takes each top-level statement as soon as it is
	// parsed, instead of the file's body.
	emit func(Expr)
}

// ParseFile parses one manifest. On any problem it returns the (possibly
// partial) file together with an ErrorList holding every error found.
func ParseFile(name string, src []byte) (*File, error) {
	body, errs := parse(name, string(src), nil)
	if len(errs) > 0 {
		return &File{Name: name, Body: body}, errs
	}
	return &File{Name: name, Body: body}, nil
}

// ParseEach parses one manifest statement by statement, calling fn with
// each top-level statement as soon as it is parsed. The parser keeps no
// reference to a statement once fn returns, and the file is lexed as it is
// parsed, so the memory of a large manifest is never all taken at once by
// its tokens or its syntax tree: a statement fn does not keep becomes
// garbage. Statements that fail to parse are not passed to fn; every error
// found is returned in an ErrorList, as ParseFile returns them (fn may have
// been called before an error later in the file).
func ParseEach(name, src string, fn func(Expr)) error {
	_, errs := parse(name, src, fn)
	return errs.Err()
}

// parse parses the manifest src, named name in positions, into its body,
// or passes each top-level statement to emit when set. errs is sorted.
func parse(name, src string, emit func(Expr)) (body []Expr, errs ErrorList) {
	source := NewSource(name, src)
	if len(src) > maxSource {
		errs.Add(source.Pos(0), "file too large: %d bytes (the limit is %d)", len(src), maxSource)
		return nil, errs
	}
	if checkUTF8(source, src, &errs) {
		return nil, errs
	}
	// Unless it is lexed whole first (below), the file is lexed as the
	// parser needs tokens, into a buffer that is emptied between
	// top-level statements. Nothing in the tree points into the token
	// buffer or the scratch stacks (empty between statements), so they
	// are reused from file to file.
	buf := parseBufs.Get().(*buffers)
	f := &fileParse{emit: emit}
	lx := newLexer(source, src, &f.lexErrs)
	lx.lexStacks = buf.lexer
	p := &parser{src: source, tt: &lx.tt, toks: buf.toks[:0], errs: &errs, a: &buf.a, lx: lx, f: f}
	f.root = p
	if emit == nil && len(src) <= maxLexedWhole {
		// A file of ordinary size is lexed whole first, so that the
		// arena's chunks can be sized from its tokens.
		if want := len(src)/4 + 1; cap(p.toks) < want {
			// Manifests run at 4 to 7 bytes a token: one allocation
			// instead of a series of ever larger copies.
			p.toks = make([]Token, 0, want)
		}
		p.lex(math.MaxInt)
		if !lx.tooDeep {
			p.a.size(p.tt, p.toks)
		}
	} else {
		p.marks = buf.marks[:0]
		if p.marks == nil {
			p.marks = make([]mark, 0, 2*lexAhead)
		}
	}
	if !lx.tooDeep {
		body = p.statements(true)
	}
	// Tokens hold no pointers, so the pooled token buffer keeps nothing of
	// this file alive; the scratch stacks are cleared as they are popped,
	// and the arena forgets its chunks.
	if cap(p.toks) <= maxPooledTokens && cap(p.marks) <= maxPooledTokens {
		*buf = buffers{toks: p.toks[:0], marks: p.marks[:0], lexer: lx.lexStacks, a: p.a.reset()}
		parseBufs.Put(buf)
	}
	if lx.tooDeep {
		// The lexer stopped at nesting no parse could take; its error
		// is the report (what the parser made of the truncated input
		// would only add noise).
		f.lexErrs.Sort()
		return nil, f.lexErrs
	}
	errs = append(f.lexErrs, errs...)
	errs.Sort()
	return body, errs
}

// lex lexes tokens into the buffer until it holds limit tokens or the
// input ends (then with the EOF token), noting which token each lexer
// error came with (see errTok) and, while the file is lexed as it is
// parsed, the marks.
func (p *parser) lex(limit int) {
	var depth int
	tt := p.tt
	for len(p.toks) < limit {
		errs, n := len(p.f.lexErrs), len(p.toks)
		m := mark{tt.strsBase + int32(len(tt.strs)), tt.partsBase + int32(len(tt.parts))}
		_, eof := p.lx.step(&p.toks, -1, &depth)
		for range len(p.f.lexErrs) - errs {
			p.f.errTok = append(p.f.errTok, int32(p.base+n))
		}
		if eof {
			p.toks = append(p.toks, Token{Kind: EOF, Off: p.lx.here()})
		}
		if p.marks != nil && len(p.toks) > n {
			p.marks = append(p.marks, m)
		}
		if eof {
			p.lx = nil
			return
		}
	}
}

// errCount is how many errors the file has so far, up to the token the
// parser of the file is at.
func (p *parser) errCount() int {
	f := p.f
	seen, _ := slices.BinarySearch(f.errTok, int32(f.root.base+f.root.i)+1)
	return len(*p.errs) + seen
}

// skipToEnd gives up parsing: the rest of the input is lexed (for the
// lexer's errors) without keeping its tokens, and the EOF token is all
// that is left to parse. The tokens the parser has are left as they are
// (a statement being parsed may still hold one), and so are the side
// tables.
func (p *parser) skipToEnd() {
	if p.lx == nil {
		// Every token is there already.
		for p.tok().Kind != EOF {
			p.next()
		}
		return
	}
	for p.lx != nil {
		p.base += len(p.toks)
		p.toks, p.marks = nil, nil
		p.lex(lexAhead)
	}
	p.i = len(p.toks) - 1
}

// rebase drops the tokens before the current one, between top-level
// statements, and the side tables' entries only they needed.
func (p *parser) rebase() {
	// The last statement may have ended with the last token lexed: the
	// current one is lexed first, so that its mark is there.
	p.at(p.i)
	m := p.marks[p.i]
	n := copy(p.toks, p.toks[p.i:])
	p.toks = p.toks[:n]
	copy(p.marks, p.marks[p.i:])
	p.marks = p.marks[:n]
	p.base += p.i
	p.i = 0
	p.tt.dropBefore(m.strs, m.parts)
}

// at returns the token at index j, lexing up to it; past the end it
// returns the EOF token.
func (p *parser) at(j int) *Token {
	if j < len(p.toks) {
		return &p.toks[j]
	}
	return p.beyond(j)
}

// beyond is at for a token not lexed yet (kept apart so that at, called
// for every look at a token, is inlined).
func (p *parser) beyond(j int) *Token {
	if p.lx != nil {
		p.lex(j + lexAhead)
	}
	if j >= len(p.toks) {
		return &p.toks[len(p.toks)-1]
	}
	return &p.toks[j]
}

// tok returns the current token. A token is never changed once lexed and
// the buffer is only rebased between top-level statements, so the pointer
// stays good for the statement being parsed (when the buffer grows, it
// points into the old copy).
func (p *parser) tok() *Token { return p.at(p.i) }

func (p *parser) peek(n int) *Token { return p.at(p.i + n) }

func (p *parser) next() *Token {
	t := p.at(p.i)
	if t.Kind != EOF {
		p.i++
	}
	return t
}

// is reports whether the current token is the operator op.
func (p *parser) is(op Op) bool {
	return p.at(p.i).Op == op
}

func (p *parser) isWord(w string) bool {
	t := p.at(p.i)
	return t.Kind == NAME && p.text(t) == w
}

// text is the text of token t.
func (p *parser) text(t *Token) string { return p.tt.text(t) }

// pos is the position of token t, for error messages.
func (p *parser) pos(t *Token) Pos { return p.src.Pos(int(t.Off)) }

// loc is the location of byte offset off, as stored in nodes.
func (p *parser) loc(off int32) Loc { return Loc{src: p.src, off: off} }

// fail records an error and unwinds to the statement loop.
func (p *parser) fail(pos Pos, format string, args ...any) {
	p.errs.Add(pos, format, args...)
	panic(bailout{})
}

func (p *parser) expect(op Op) *Token {
	if !p.is(op) {
		p.fail(p.pos(p.tok()), "syntax error: expected '%s', found %s", op, p.tt.describe(p.tok()))
	}
	return p.next()
}

// statements parses statements up to '}' (not consumed) or EOF. Each
// statement that fails is skipped so later errors are still found.
func (p *parser) statements(top bool) []Expr {
	base := len(p.a.scratch)
	done := func() []Expr {
		out := carve(&p.a.exprs, p.a.scratch[base:])
		clear(p.a.scratch[base:])
		p.a.scratch = p.a.scratch[:base]
		return out
	}
	for {
		if top && p.lx != nil && p.i >= rebaseAt {
			p.rebase()
		}
		if p.errCount() >= maxErrors {
			p.skipToEnd()
			return done()
		}
		t := p.tok()
		if t.Kind == EOF {
			return done()
		}
		if p.is(OpRBrace) {
			if top {
				p.errs.Add(p.pos(t), "syntax error: unexpected '}'")
				p.next()
				continue
			}
			return done()
		}
		if p.is(OpSemicolon) {
			p.next()
			continue
		}
		start := p.i
		def := top && p.f.emit != nil && p.definition()
		if def {
			// A definition may be kept while what surrounds it is
			// dropped: its nodes get chunks of their own.
			p.a.fresh()
		}
		e, ok := p.safeStatement()
		if def {
			p.a.fresh()
		}
		if _, isNode := e.(*NodeDef); ok && isNode && !top {
			p.errs.Add(e.Position(), "Classes, definitions, and nodes may only appear at toplevel or inside other classes")
		}
		switch {
		case ok && top && p.f.emit != nil:
			p.f.emit(e)
		case ok:
			p.a.scratch = append(p.a.scratch, e)
		default:
			p.synchronize(start)
		}
	}
}

func (p *parser) safeStatement() (e Expr, ok bool) {
	saveDepth, saveBrace := p.depth, p.noBrace
	saveScratch, saveAttrs := len(p.a.scratch), len(p.a.attrScratch)
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			p.depth, p.noBrace = saveDepth, saveBrace
			p.a.truncate(saveScratch, saveAttrs)
			ok = false
		}
	}()
	return p.statement(), true
}

// synchronize skips tokens after an error until a likely statement start at the
// nesting level where the failed statement began.
func (p *parser) synchronize(start int) {
	if p.i == start {
		p.next()
	}
	depth := 0
	sawBrace := false
	// Re-count nesting from the statement start so we stop at its level.
	for j := start; j < p.i; j++ {
		depth += p.nesting(p.at(j))
		sawBrace = sawBrace || p.at(j).Op == OpLBrace
	}
	// A failed definition is skipped whole, body included.
	if s := p.at(start); s.Kind == NAME && (p.text(s) == "class" && p.at(start+1).Kind == NAME ||
		p.text(s) == "define" || p.text(s) == "node" || p.text(s) == "function") && !sawBrace {
		for p.tok().Kind != EOF && !p.is(OpLBrace) {
			p.next()
		}
	}
	prevLine := p.src.line(p.at(max(p.i-1, 0)).Off)
	for p.tok().Kind != EOF {
		t := p.tok()
		line := p.src.line(t.Off)
		newLine := line > prevLine
		prevLine = line
		if depth <= 0 {
			// A type name opening a line (Exec['a'] -> ..., Exec <| |>)
			// starts a statement: continuation lines start with an
			// operator instead.
			if newLine && t.Kind == TYPE && p.i > start {
				return
			}
			if t.Op == OpRBrace {
				return
			}
			if t.Op == OpSemicolon {
				p.next()
				return
			}
			if startsStatement(p, t) {
				return
			}
		}
		d := p.nesting(t)
		depth += d
		if depth < 0 {
			depth = 0
		}
		p.next()
		if d < 0 && depth == 0 && t.Op == OpRBrace {
			return // the failed statement's block is closed
		}
	}
}

func (p *parser) nesting(t *Token) int {
	if t.Kind != PUNCT {
		return 0
	}
	switch t.Op {
	case OpLBrace, OpLBracket, OpLParen:
		return 1
	case OpRBrace, OpRBracket, OpRParen:
		return -1
	}
	return 0
}

// startsStatement reports whether t, at nesting level zero, plausibly begins
// a new statement: a keyword, or a resource declaration `name {`.
func startsStatement(p *parser, t *Token) bool {
	if t.Kind == NAME {
		switch p.text(t) {
		case "class", "define", "if", "unless", "case", "node", "include", "contain", "function":
			return true
		case "type":
			return p.peek(1).Kind == TYPE
		}
		n := p.peek(1)
		return n.Op == OpLBrace
	}
	if t.Kind == VAR {
		n := p.peek(1)
		return n.Op == OpAssign
	}
	return t.Op == OpAt || t.Op == OpAtAt
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.pos(p.tok()), "expression nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// maxChain bounds how many binary operators, accesses, method calls or
// selectors may follow one another: each makes the tree one level deeper
// for whatever walks it. (Arrows are not bounded: a chain of them is
// evaluated without recursion.)
const maxChain = 10_000

// chained fails at t when it is the operator after n in a row that would
// pass maxChain.
func (p *parser) chained(n int, t *Token) {
	if n >= maxChain {
		p.fail(p.pos(t), "expression too long: more than %d operators in a row", maxChain)
	}
}

// definition reports whether the statement at the current token defines a
// class, a defined type or a node.
func (p *parser) definition() bool {
	t := p.tok()
	if t.Kind != NAME {
		return false
	}
	switch p.text(t) {
	case "class":
		return p.peek(1).Kind == NAME
	case "define", "node":
		return true
	}
	return false
}

// statement parses one statement: a definition or an expression.
func (p *parser) statement() Expr {
	t := p.tok()
	if t.Kind == NAME {
		switch p.text(t) {
		case "class":
			if p.peek(1).Kind == NAME {
				return p.classDef()
			}
		case "define":
			return p.defineDef()
		case "node":
			return p.nodeDef()
		case "function":
			p.fail(p.pos(t), "unsupported: function definitions")
		case "type":
			if p.peek(1).Kind == TYPE {
				p.fail(p.pos(t), "unsupported: type aliases")
			}
		case "elsif", "else":
			p.fail(p.pos(t), "syntax error: '%s' without a preceding if", p.text(t))
		}
		if statementFunctions[p.text(t)] {
			n := p.peek(1)
			if n.Op != OpLParen {
				return p.statementCall()
			}
		}
	}
	return p.expr()
}

// statementCall parses `include a, b` style calls without parentheses.
func (p *parser) statementCall() Expr {
	t := p.next()
	c := &Call{At: At{p.loc(t.Off)}, Name: p.text(t)}
	c.Args = append(c.Args, p.expr())
	for p.is(OpComma) {
		p.next()
		c.Args = append(c.Args, p.expr())
	}
	return c
}

func (p *parser) classDef() Expr {
	kw := p.next()
	name := p.next()
	if keywords[p.text(name)] {
		p.fail(p.pos(name), "syntax error: '%s' is a keyword and cannot name a class", p.text(name))
	}
	c := &ClassDef{At: At{p.loc(kw.Off)}, Name: strings.TrimPrefix(p.text(name), "::")}
	if p.is(OpLParen) {
		c.Params = p.params()
	}
	if p.isWord("inherits") {
		p.fail(p.pos(p.tok()), "unsupported: class inheritance")
	}
	c.Body = p.block()
	return c
}

func (p *parser) defineDef() Expr {
	kw := p.next()
	name := p.tok()
	if name.Kind == NAME && keywords[p.text(name)] {
		p.fail(p.pos(name), "syntax error: '%s' is a reserved word and cannot name a defined type", p.text(name))
	}
	if name.Kind != NAME {
		p.fail(p.pos(name), "syntax error: expected a name after 'define', found %s", p.tt.describe(name))
	}
	p.next()
	d := &DefineDef{At: At{p.loc(kw.Off)}, Name: strings.TrimPrefix(p.text(name), "::")}
	if p.is(OpLParen) {
		d.Params = p.params()
	}
	d.Body = p.block()
	return d
}

// params parses ( [Type] $name [= default], ... ).
func (p *parser) params() []Param {
	p.expect(OpLParen)
	var out []Param
	for !p.is(OpRParen) {
		out = append(out, p.param())
		if !p.is(OpComma) {
			break
		}
		p.next()
	}
	p.expect(OpRParen)
	return out
}

func (p *parser) param() Param {
	var pr Param
	pr.Loc = p.loc(p.tok().Off)
	if p.tok().Kind == TYPE {
		pr.Type = p.postfix(p.typeExpr())
	}
	if p.is(OpStar) {
		p.fail(p.pos(p.tok()), "unsupported: captures-rest parameters")
	}
	v := p.tok()
	if v.Kind != VAR {
		p.fail(p.pos(v), "syntax error: expected a parameter like $name, found %s", p.tt.describe(v))
	}
	p.next()
	pr.Name = p.text(v)
	if p.is(OpAssign) {
		p.next()
		pr.Default = p.expr()
	}
	return pr
}

func (p *parser) typeExpr() Expr {
	t := p.next()
	n := alloc(&p.a.types)
	*n = TypeName{At: At{p.loc(t.Off)}, Name: p.text(t)}
	return n
}

// block parses { statements }.
func (p *parser) block() []Expr {
	p.expect(OpLBrace)
	saveBrace := p.noBrace
	p.noBrace = false
	body := p.statements(false)
	p.noBrace = saveBrace
	p.expect(OpRBrace)
	return body
}
