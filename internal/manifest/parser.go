package manifest

import (
	"regexp"
	"strconv"
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
	"application": true, "site": true, "produces": true, "consumes": true, "attr": true, "private": true,
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

func (p *parser) is(text string) bool {
	t := p.at(p.i)
	return t.Kind == PUNCT && p.text(t) == text
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

func (p *parser) expect(text string) *Token {
	if !p.is(text) {
		p.fail(p.pos(p.tok()), "syntax error: expected '%s', found %s", text, p.tt.describe(p.tok()))
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
		if p.is("}") {
			if top {
				p.errs.Add(p.pos(t), "syntax error: unexpected '}'")
				p.next()
				continue
			}
			return done()
		}
		if p.is(";") {
			p.next()
			continue
		}
		start := p.i
		e, ok := p.safeStatement()
		if ok {
			p.a.scratch = append(p.a.scratch, e)
			continue
		}
		p.recover(start)
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

// recover skips tokens after an error until a likely statement start at the
// nesting level where the failed statement began.
func (p *parser) recover(start int) {
	if p.i == start {
		p.next()
	}
	depth := 0
	sawBrace := false
	// Re-count nesting from the statement start so we stop at its level.
	for j := start; j < p.i; j++ {
		depth += p.nesting(p.at(j))
		sawBrace = sawBrace || p.at(j).Kind == PUNCT && p.text(p.at(j)) == "{"
	}
	// A failed definition is skipped whole, body included.
	if s := p.at(start); s.Kind == NAME && (p.text(s) == "class" && p.at(start+1).Kind == NAME ||
		p.text(s) == "define" || p.text(s) == "node" || p.text(s) == "function") && !sawBrace {
		for p.tok().Kind != EOF && !p.is("{") {
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
			if t.Kind == PUNCT && p.text(t) == "}" {
				return
			}
			if t.Kind == PUNCT && p.text(t) == ";" {
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
		if d < 0 && depth == 0 && p.text(t) == "}" {
			return // the failed statement's block is closed
		}
	}
}

func (p *parser) nesting(t *Token) int {
	if t.Kind != PUNCT {
		return 0
	}
	switch p.text(t) {
	case "{", "[", "(":
		return 1
	case "}", "]", ")":
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
		return n.Kind == PUNCT && p.text(n) == "{"
	}
	if t.Kind == VAR {
		n := p.peek(1)
		return n.Kind == PUNCT && p.text(n) == "="
	}
	return t.Kind == PUNCT && (p.text(t) == "@" || p.text(t) == "@@")
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.pos(p.tok()), "expression nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

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
			p.fail(p.pos(t), "unsupported: node definitions")
		case "function":
			p.fail(p.pos(t), "unsupported: function definitions")
		case "type":
			if p.peek(1).Kind == TYPE {
				p.fail(p.pos(t), "unsupported: type aliases")
			}
		case "application", "site", "produces", "consumes":
			p.fail(p.pos(t), "unsupported: %s (application orchestration)", p.text(t))
		case "elsif", "else":
			p.fail(p.pos(t), "syntax error: '%s' without a preceding if", p.text(t))
		}
		if statementFunctions[p.text(t)] {
			n := p.peek(1)
			if !(n.Kind == PUNCT && p.text(n) == "(") {
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
	for p.is(",") {
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
	if p.is("(") {
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
	if p.is("(") {
		d.Params = p.params()
	}
	d.Body = p.block()
	return d
}

// params parses ( [Type] $name [= default], ... ).
func (p *parser) params() []Param {
	p.expect("(")
	var out []Param
	for !p.is(")") {
		out = append(out, p.param())
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect(")")
	return out
}

func (p *parser) param() Param {
	var pr Param
	pr.Loc = p.loc(p.tok().Off)
	if p.tok().Kind == TYPE {
		pr.Type = p.postfix(p.typeExpr())
	}
	if p.is("*") {
		p.fail(p.pos(p.tok()), "unsupported: captures-rest parameters")
	}
	v := p.tok()
	if v.Kind != VAR {
		p.fail(p.pos(v), "syntax error: expected a parameter like $name, found %s", p.tt.describe(v))
	}
	p.next()
	pr.Name = p.text(v)
	if p.is("=") {
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
	p.expect("{")
	saveBrace := p.noBrace
	p.noBrace = false
	body := p.statements(false)
	p.noBrace = saveBrace
	p.expect("}")
	return body
}

// expr parses a full expression: chains of relationship arrows, the loosest
// operators, over assignments.
func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	l := p.assign()
	for {
		t := p.tok()
		if t.Kind != PUNCT {
			return l
		}
		switch p.text(t) {
		case "->", "~>", "<-", "<~":
			p.next()
			r := p.assign()
			c := alloc(&p.a.chains)
			*c = Chain{At: At{p.loc(t.Off)}, Op: p.text(t), L: l, R: r}
			l = c
		default:
			return l
		}
	}
}

func (p *parser) assign() Expr {
	l := p.binary(1)
	if p.is("=") {
		t := p.next()
		v, ok := l.(*Var)
		if !ok {
			if _, arr := l.(*ArrayLit); arr {
				p.fail(p.pos(t), "unsupported: destructuring assignment")
			}
			p.fail(p.pos(t), "syntax error: can only assign to a variable")
		}
		if strings.Contains(v.Name, "::") {
			p.fail(v.Position(), "Cannot assign to variables in other namespaces: '$%s'", v.Name)
		}
		if v.Name != "" && isDigit(v.Name[0]) {
			p.fail(v.Position(), "Illegal attempt to assign to the numeric match result variable '$%s'", v.Name)
		}
		return &Assign{At: At{v.Loc}, Name: v.Name, Value: p.assign()}
	}
	if p.is("+=") || p.is("-=") {
		p.fail(p.pos(p.tok()), "unsupported: %s", p.text(p.tok()))
	}
	return l
}

// binaryPrec returns the precedence of a binary operator token (higher
// binds tighter), or 0 if t is not one.
func (p *parser) binaryPrec(t *Token) int {
	switch t.Kind {
	case NAME:
		switch p.text(t) {
		case "or":
			return 1
		case "and":
			return 2
		case "in":
			return 9
		}
	case PUNCT:
		switch p.text(t) {
		case "<", "<=", ">", ">=":
			return 3
		case "==", "!=":
			return 4
		case "<<", ">>":
			return 5
		case "+", "-":
			return 6
		case "*", "/", "%":
			return 7
		case "=~", "!~":
			return 8
		}
	}
	return 0
}

// binary parses binary operators by precedence climbing, all left
// associative.
func (p *parser) binary(minPrec int) Expr {
	l := p.unary()
	for {
		t := p.at(p.i)
		prec := p.binaryPrec(t)
		if prec == 0 || prec < minPrec {
			return l
		}
		op := p.next()
		if p.text(op) == "<<" || p.text(op) == ">>" {
			p.fail(p.pos(op), "unsupported: operator '%s'", p.text(op))
		}
		r := p.binary(prec + 1)
		b := alloc(&p.a.binary)
		*b = Binary{At: At{p.loc(op.Off)}, Op: p.text(op), L: l, R: r}
		l = b
	}
}

func (p *parser) unary() Expr {
	t := p.tok()
	if t.Kind == PUNCT && (p.text(t) == "!" || p.text(t) == "-") {
		p.enter()
		defer p.leave()
		p.next()
		x := p.unary()
		if n, ok := x.(*NumberLit); ok && p.text(t) == "-" {
			n.Int, n.Float, n.Raw, n.Loc = -n.Int, -n.Float, "-"+n.Raw, p.loc(t.Off)
			return n
		}
		return &Unary{At: At{p.loc(t.Off)}, Op: p.text(t), X: x}
	}
	if t.Kind == PUNCT && p.text(t) == "*" {
		p.fail(p.pos(t), "unsupported: splat operator")
	}
	return p.postfix(p.primary())
}

// postfix parses accesses x[k], method calls x.f(...) and selectors x ? {}.
func (p *parser) postfix(x Expr) Expr {
	for {
		t := p.tok()
		if t.Kind != PUNCT {
			return x
		}
		switch p.text(t) {
		case "[":
			if t.Space {
				return x
			}
			p.next()
			a := alloc(&p.a.access)
			*a = Access{At: At{x.loc()}, Target: x}
			a.Keys = p.list("]")
			if len(a.Keys) == 0 {
				p.fail(p.pos(t), "syntax error: empty []")
			}
			x = a
			if p.is("{") && !p.noBrace {
				if _, isType := a.Target.(*TypeName); isType {
					p.fail(p.pos(p.tok()), "unsupported: resource overrides (Type['title'] { ... })")
				}
			}
		case ".":
			p.next()
			n := p.tok()
			if n.Kind != NAME {
				p.fail(p.pos(n), "syntax error: expected a function name after '.', found %s", p.tt.describe(n))
			}
			p.next()
			c := &Call{At: At{p.loc(n.Off)}, Name: p.text(n), Args: []Expr{x}, Method: true}
			p.callRest(c)
			x = c
		case "?":
			p.next()
			x = p.selector(x, t.Off)
		default:
			return x
		}
	}
}

// callRest parses optional (args) and lambda after a function name.
func (p *parser) callRest(c *Call) {
	if !Functions[c.Name] {
		p.fail(c.Position(), "unsupported: function '%s'", c.Name)
	}
	if p.is("(") {
		p.next()
		c.Args = append(c.Args, p.list(")")...)
	}
	if p.is("|") {
		c.Lambda = p.lambda()
	}
}

func (p *parser) lambda() *Lambda {
	t := p.expect("|")
	l := &Lambda{Loc: p.loc(t.Off)}
	for !p.is("|") {
		l.Params = append(l.Params, p.param())
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect("|")
	l.Body = p.block()
	return l
}

func (p *parser) selector(subject Expr, off int32) Expr {
	p.expect("{")
	saveBrace := p.noBrace
	p.noBrace = false
	s := &Selector{At: At{p.loc(off)}, Subject: subject}
	for !p.is("}") {
		m := p.expr()
		p.expect("=>")
		v := p.expr()
		s.Cases = append(s.Cases, SelectorCase{Match: m, Value: v})
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.noBrace = saveBrace
	p.expect("}")
	if len(s.Cases) == 0 {
		p.fail(p.src.Pos(int(off)), "syntax error: selector without cases")
	}
	return s
}

// list parses comma-separated expressions up to the closing token, allowing
// a trailing comma.
func (p *parser) list(closer string) []Expr {
	saveBrace := p.noBrace
	p.noBrace = false
	base := len(p.a.scratch)
	for !p.is(closer) {
		x := p.expr()
		p.a.scratch = append(p.a.scratch, x)
		if !p.is(",") {
			break
		}
		p.next()
	}
	out := carve(&p.a.exprs, p.a.scratch[base:])
	clear(p.a.scratch[base:])
	p.a.scratch = p.a.scratch[:base]
	p.noBrace = saveBrace
	p.expect(closer)
	return out
}

func (p *parser) primary() Expr {
	p.enter()
	defer p.leave()
	t := p.tok()
	switch t.Kind {
	case STRING:
		p.next()
		n := alloc(&p.a.strs)
		*n = StringLit{At: At{p.loc(t.Off)}, Value: p.text(t)}
		return n
	case DQ:
		p.next()
		return p.interp(t)
	case NUMBER:
		p.next()
		return p.number(t)
	case REGEX:
		p.next()
		re, err := regexp.Compile(p.text(t))
		if err != nil {
			p.errs.Add(p.pos(t), "invalid regular expression /%s/: %v", p.text(t), err)
		}
		return &RegexLit{At: At{p.loc(t.Off)}, Source: p.text(t), Re: re}
	case VAR:
		p.next()
		n := alloc(&p.a.vars)
		*n = Var{At: At{p.loc(t.Off)}, Name: p.text(t)}
		return n
	case NAME:
		return p.word()
	case TYPE:
		return p.typeWord()
	case EOF:
		p.fail(p.pos(t), "syntax error: unexpected %s", p.tt.describe(t))
	}
	switch p.text(t) {
	case "[":
		p.next()
		n := alloc(&p.a.arrays)
		*n = ArrayLit{At: At{p.loc(t.Off)}}
		n.Elems = p.list("]")
		return n
	case "{":
		return p.hash()
	case "(":
		p.next()
		saveBrace := p.noBrace
		p.noBrace = false
		x := p.expr()
		p.noBrace = saveBrace
		p.expect(")")
		return &Paren{At: At{p.loc(t.Off)}, X: x}
	case "@":
		p.next()
		n := p.tok()
		if n.Kind != NAME || !(p.peek(1).Kind == PUNCT && p.text(p.peek(1)) == "{") {
			p.fail(p.pos(t), "syntax error: '@' must be followed by a resource declaration like @exec { 'title': }")
		}
		p.next()
		d := p.resource(n, true).(*ResourceDecl)
		d.Loc = p.loc(t.Off)
		return d
	case "@@":
		p.fail(p.pos(t), "unsupported: exported resources")
	case "@(":
		p.fail(p.pos(t), "unsupported: heredocs")
	case "<<|", "|>>":
		p.fail(p.pos(t), "unsupported: exported resource collectors")
	case "+>":
		p.fail(p.pos(t), "unsupported: +> (attribute append)")
	}
	p.fail(p.pos(t), "syntax error: unexpected %s", p.tt.describe(t))
	return nil
}

// word parses an expression starting with a bare lower-case word.
func (p *parser) word() Expr {
	t := p.next()
	switch p.text(t) {
	case "true", "false":
		n := alloc(&p.a.bools)
		*n = BoolLit{At: At{p.loc(t.Off)}, Value: p.text(t) == "true"}
		return n
	case "undef":
		return &UndefLit{At: At{p.loc(t.Off)}}
	case "default":
		return &DefaultLit{At: At{p.loc(t.Off)}}
	case "if":
		return p.ifExpr(t)
	case "unless":
		return p.unlessExpr(t)
	case "case":
		return p.caseExpr(t)
	case "class":
		if p.is("{") {
			return p.resource(t, false)
		}
		p.fail(p.pos(t), "syntax error: class definitions are only allowed as statements")
	case "node":
		p.fail(p.pos(t), "unsupported: node definitions")
	case "function":
		p.fail(p.pos(t), "unsupported: function definitions")
	case "define":
		p.fail(p.pos(t), "syntax error: define is only allowed as a statement")
	case "and", "or", "in", "elsif", "else", "inherits":
		p.fail(p.pos(t), "syntax error: unexpected keyword '%s'", p.text(t))
	}
	if p.is("(") {
		c := &Call{At: At{p.loc(t.Off)}, Name: p.text(t)}
		p.callRest(c)
		return c
	}
	if p.is("{") && !p.noBrace {
		return p.resource(t, false)
	}
	if p.is("|") && Functions[p.text(t)] {
		c := &Call{At: At{p.loc(t.Off)}, Name: p.text(t)}
		p.callRest(c)
		return c
	}
	n := alloc(&p.a.names)
	*n = NameLit{At: At{p.loc(t.Off)}, Name: strings.TrimPrefix(p.text(t), "::")}
	return n
}

// typeWord parses an expression starting with a capitalized word: a type
// reference, resource defaults or a collector.
func (p *parser) typeWord() Expr {
	t := p.next()
	name := strings.TrimPrefix(p.text(t), "::")
	switch {
	case p.is("<|"):
		return p.collector(t, name)
	case p.is("<<|"):
		p.fail(p.pos(p.tok()), "unsupported: exported resource collectors")
	case p.is("{") && !p.noBrace:
		p.next()
		d := &ResourceDefaults{At: At{p.loc(t.Off)}, Type: name}
		d.Attrs = p.attrs()
		p.expect("}")
		return d
	}
	n := alloc(&p.a.types)
	*n = TypeName{At: At{p.loc(t.Off)}, Name: name}
	return n
}

func (p *parser) collector(t *Token, name string) Expr {
	p.expect("<|")
	c := &Collector{At: At{p.loc(t.Off)}, Type: name}
	if !p.is("|>") {
		c.Query = p.queryOr()
	}
	p.expect("|>")
	if p.is("{") && !p.noBrace {
		p.fail(p.pos(p.tok()), "unsupported: collector attribute overrides (Type <| |> { ... })")
	}
	return c
}

func (p *parser) queryOr() Expr {
	p.enter()
	defer p.leave()
	l := p.queryAnd()
	for p.isWord("or") {
		t := p.next()
		l = &Binary{At: At{p.loc(t.Off)}, Op: "or", L: l, R: p.queryAnd()}
	}
	return l
}

func (p *parser) queryAnd() Expr {
	l := p.queryTerm()
	for p.isWord("and") {
		t := p.next()
		l = &Binary{At: At{p.loc(t.Off)}, Op: "and", L: l, R: p.queryTerm()}
	}
	return l
}

func (p *parser) queryTerm() Expr {
	t := p.tok()
	if p.is("(") {
		p.next()
		x := p.queryOr()
		p.expect(")")
		return &Paren{At: At{p.loc(t.Off)}, X: x}
	}
	if t.Kind != NAME || keywords[p.text(t)] && p.text(t) != "default" {
		p.fail(p.pos(t), "syntax error: expected an attribute name in collector query, found %s", p.tt.describe(t))
	}
	p.next()
	op := p.tok()
	if !(p.is("==") || p.is("!=")) {
		p.fail(p.pos(op), "syntax error: expected '==' or '!=' in collector query, found %s", p.tt.describe(op))
	}
	p.next()
	v := p.postfix(p.primary())
	return &Binary{At: At{p.loc(op.Off)}, Op: p.text(op), L: &NameLit{At: At{p.loc(t.Off)}, Name: p.text(t)}, R: v}
}

// resource parses the bodies of `type { title: attrs; ... }`; the type
// token has been consumed.
func (p *parser) resource(typ *Token, virtual bool) Expr {
	open := p.expect("{")
	saveBrace := p.noBrace
	p.noBrace = false
	d := alloc(&p.a.decls)
	*d = ResourceDecl{At: At{p.loc(typ.Off)}, Type: strings.TrimPrefix(strings.ToLower(p.text(typ)), "::"), Virtual: virtual}
	for !p.is("}") {
		bp := p.loc(p.tok().Off)
		title := p.expr()
		if !p.is(":") {
			p.fail(p.pos(p.tok()), "syntax error: expected ':' after the resource title, found %s", p.tt.describe(p.tok()))
		}
		p.next()
		body := ResourceBody{Loc: bp, Title: title}
		body.Attrs = p.attrs()
		d.Bodies = append(d.Bodies, body)
		if !p.is(";") {
			break
		}
		p.next()
	}
	p.noBrace = saveBrace
	p.expect("}")
	if len(d.Bodies) == 0 {
		p.fail(p.pos(open), "syntax error: resource declaration without a title")
	}
	return d
}

// attrs parses `name => value, ...` up to ';' or '}'.
func (p *parser) attrs() []Attr {
	base := len(p.a.attrScratch)
	defer func() {
		clear(p.a.attrScratch[base:])
		p.a.attrScratch = p.a.attrScratch[:base]
	}()
	for !p.is("}") && !p.is(";") {
		t := p.tok()
		if p.is("*") {
			p.fail(p.pos(t), "unsupported: attribute splat (* => hash)")
		}
		if t.Kind != NAME {
			p.fail(p.pos(t), "syntax error: expected an attribute name, found %s", p.tt.describe(t))
		}
		p.next()
		if p.is("+>") {
			p.fail(p.pos(p.tok()), "unsupported: +> (attribute append)")
		}
		p.expect("=>")
		v := p.expr()
		p.a.attrScratch = append(p.a.attrScratch, Attr{Loc: p.loc(t.Off), Name: p.text(t), Value: v})
		if !p.is(",") {
			break
		}
		p.next()
	}
	return carve(&p.a.attrs, p.a.attrScratch[base:])
}

func (p *parser) hash() Expr {
	t := p.expect("{")
	saveBrace := p.noBrace
	p.noBrace = false
	h := &HashLit{At: At{p.loc(t.Off)}}
	for !p.is("}") {
		k := p.expr()
		p.expect("=>")
		v := p.expr()
		h.Entries = append(h.Entries, HashEntry{Key: k, Value: v})
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.noBrace = saveBrace
	p.expect("}")
	return h
}

// condition parses an if/unless/case condition, where `word {` is not a
// resource declaration.
func (p *parser) condition() Expr {
	save := p.noBrace
	p.noBrace = true
	x := p.expr()
	p.noBrace = save
	return x
}

func (p *parser) ifExpr(kw *Token) Expr {
	n := &If{At: At{p.loc(kw.Off)}, Cond: p.condition()}
	n.Then = p.block()
	switch {
	case p.isWord("elsif"):
		t := p.next()
		n.Else = []Expr{p.ifExpr(t)}
	case p.isWord("else"):
		p.next()
		n.Else = p.block()
	}
	return n
}

func (p *parser) unlessExpr(kw *Token) Expr {
	n := &Unless{At: At{p.loc(kw.Off)}, Cond: p.condition()}
	n.Then = p.block()
	if p.isWord("elsif") {
		p.fail(p.pos(p.tok()), "syntax error: unless does not support elsif")
	}
	if p.isWord("else") {
		p.next()
		n.Else = p.block()
	}
	return n
}

func (p *parser) caseExpr(kw *Token) Expr {
	c := &Case{At: At{p.loc(kw.Off)}, Subject: p.condition()}
	p.expect("{")
	for !p.is("}") {
		o := CaseOption{Loc: p.loc(p.tok().Off)}
		for {
			o.Values = append(o.Values, p.condition())
			if !p.is(",") {
				break
			}
			p.next()
		}
		p.expect(":")
		o.Body = p.block()
		c.Options = append(c.Options, o)
	}
	p.expect("}")
	return c
}

func (p *parser) number(t *Token) Expr {
	n := alloc(&p.a.nums)
	*n = NumberLit{At: At{p.loc(t.Off)}, Raw: p.text(t)}
	s := p.text(t)
	var err error
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		var u uint64
		u, err = strconv.ParseUint(s[2:], 16, 63)
		n.Int = int64(u)
	case strings.ContainsAny(s, ".eE"):
		n.IsFloat = true
		n.Float, err = strconv.ParseFloat(s, 64)
	case len(s) > 1 && s[0] == '0':
		var u uint64
		u, err = strconv.ParseUint(s[1:], 8, 63)
		n.Int = int64(u)
	default:
		var u uint64
		u, err = strconv.ParseUint(s, 10, 63)
		n.Int = int64(u)
	}
	if err != nil {
		p.errs.Add(p.pos(t), "invalid number '%s'", s)
	}
	n.Float = float64(n.Int)
	if n.IsFloat {
		n.Float, _ = strconv.ParseFloat(s, 64)
	}
	return n
}

// interp parses the pieces of an interpolated string.
func (p *parser) interp(t *Token) Expr {
	s := alloc(&p.a.interps)
	*s = Interp{At: At{p.loc(t.Off)}}
	var parts []StrPart
	if t.Kind == DQ {
		parts = p.tt.parts[t.Aux-1]
	}
	// The pieces are collected on the scratch stack (interpolated
	// expressions push and pop above them) and carved out at their size.
	base := len(p.a.scratch)
	defer func() {
		s.Parts = carve(&p.a.exprs, p.a.scratch[base:])
		clear(p.a.scratch[base:])
		p.a.scratch = p.a.scratch[:base]
	}()
	for _, part := range parts {
		if part.Tokens == nil {
			lit := alloc(&p.a.strs)
			*lit = StringLit{At: At{p.loc(part.Off)}, Value: part.Lit}
			p.a.scratch = append(p.a.scratch, lit)
			continue
		}
		// The part's tokens belong to this parse alone, so they are
		// retyped in place (which is idempotent).
		toks := part.Tokens
		// In ${name...} a leading bare word names a variable, and ${1} is
		// the match variable $1.
		if len(toks) == 2 && toks[0].Kind == NUMBER && isAllDigits(p.text(&toks[0])) {
			toks[0].Kind = VAR
		}
		if len(toks) > 1 && toks[0].Kind == NAME && !keywords[p.text(&toks[0])] {
			n := &toks[1]
			if n.Kind == EOF || n.Kind == PUNCT && (p.text(n) == "[" || p.text(n) == ".") {
				toks[0].Kind = VAR
			}
		}
		if len(toks) == 1 {
			p.errs.Add(p.src.Pos(int(part.Off)), "syntax error: empty ${} interpolation")
			continue
		}
		sub := &parser{src: p.src, tt: p.tt, toks: toks, errs: p.errs, depth: p.depth, a: p.a}
		x, ok := sub.safeExpr()
		if !ok {
			continue
		}
		if sub.tok().Kind != EOF {
			p.errs.Add(p.pos(sub.tok()), "syntax error: unexpected %s in string interpolation", p.tt.describe(sub.tok()))
			continue
		}
		p.a.scratch = append(p.a.scratch, x)
	}
	return s
}

func (p *parser) safeExpr() (e Expr, ok bool) {
	saveScratch, saveAttrs := len(p.a.scratch), len(p.a.attrScratch)
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail {
				panic(r)
			}
			p.a.truncate(saveScratch, saveAttrs)
			ok = false
		}
	}()
	return p.expr(), true
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
