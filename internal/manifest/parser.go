package manifest

import (
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
	lexer lexStacks
	a     arena
}

var parseBufs = sync.Pool{New: func() any { return new(buffers) }}

// maxPooledTokens bounds the token buffer kept for reuse (10 MB, enough
// for a 2 MB manifest), so that a huge file does not keep its tokens'
// memory alive after its parse.
const maxPooledTokens = 1 << 19

// bailout unwinds the parser to the enclosing statement after an error.
type bailout struct{}

type parser struct {
	src     *Source
	tt      *texts
	toks    []Token // every token of the file, or of an interpolation, ending with EOF
	i       int     // index of the current token
	errs    *ErrorList
	depth   int
	noBrace bool // while parsing a condition, `name {` does not start a resource
	a       *arena
}

// ParseFile parses one manifest. On any problem it returns the (possibly
// partial) file together with an ErrorList holding every error found.
func ParseFile(name string, src []byte) (*File, error) {
	var errs ErrorList
	source := NewSource(name, src)
	f := &File{Name: name}
	if len(src) > maxSource {
		errs.Add(source.Pos(0), "file too large: %d bytes (the limit is %d)", len(src), maxSource)
		return f, errs
	}
	if checkUTF8(source, src, &errs) {
		return f, errs
	}
	// The whole file is lexed first, so that the arena's chunks can be
	// sized from its tokens. Nothing in the tree points into the token
	// buffer or the scratch stacks (empty between statements), so they are
	// reused from file to file.
	buf := parseBufs.Get().(*buffers)
	lx := newLexer(source, src, &errs)
	lx.lexStacks = buf.lexer
	toks := buf.toks
	if want := len(src)/4 + 1; cap(toks) < want {
		// Manifests run at 4 to 7 bytes a token: one allocation instead
		// of a series of ever larger copies.
		toks = make([]Token, 0, want)
	}
	lx.run(&toks, -1)
	toks = append(toks, Token{Kind: EOF, Off: lx.here()})
	if lx.tooDeep {
		// The lexer stopped at nesting no parse could take; its error
		// is the report (parsing the truncated rest would add noise).
		return f, errs
	}
	p := &parser{src: source, tt: &lx.tt, toks: toks, errs: &errs, a: &buf.a}
	p.a.size(p.tt, toks)
	f.Body = p.statements(true)
	// Tokens hold no pointers, so the pooled token buffer keeps nothing of
	// this file alive; the scratch stacks are cleared as they are popped,
	// and the arena forgets its chunks.
	if cap(p.toks) <= maxPooledTokens {
		*buf = buffers{toks: p.toks[:0], lexer: lx.lexStacks, a: p.a.reset()}
		parseBufs.Put(buf)
	}
	errs.Sort()
	if len(errs) > 0 {
		return f, errs
	}
	return f, nil
}

// at returns the token at index j; past the end it returns the EOF token.
func (p *parser) at(j int) *Token {
	if j >= len(p.toks) {
		return &p.toks[len(p.toks)-1]
	}
	return &p.toks[j]
}

// tok returns the current token. Tokens are never moved once lexed, so the
// pointer stays valid for the whole parse.
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
		if len(*p.errs) >= maxErrors {
			for p.tok().Kind != EOF {
				p.next()
			}
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
		e, ok := p.safeStatement()
		if _, isNode := e.(*NodeDef); ok && isNode && !top {
			p.errs.Add(e.Position(), "Classes, definitions, and nodes may only appear at toplevel or inside other classes")
		}
		if ok {
			p.a.scratch = append(p.a.scratch, e)
			continue
		}
		p.synchronize(start)
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
