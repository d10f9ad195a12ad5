package manifest

import (
	"regexp"
	"strings"
)

// Expressions: operators by precedence, postfix access, primaries,
// collectors and resource declarations with their attributes.

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
		switch t.Op {
		case OpArrow, OpNotifyArrow, OpBackArrow, OpBackNotifyArrow:
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
	if p.is(OpAssign) {
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
	if p.is(OpPlusAssign) || p.is(OpMinusAssign) {
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
		switch t.Op {
		case OpLt, OpLe, OpGt, OpGe:
			return 3
		case OpEq, OpNe:
			return 4
		case OpShl, OpShr:
			return 5
		case OpPlus, OpMinus:
			return 6
		case OpStar, OpSlash, OpPercent:
			return 7
		case OpMatch, OpNoMatch:
			return 8
		}
	}
	return 0
}

// binary parses binary operators by precedence climbing, all left
// associative.
func (p *parser) binary(minPrec int) Expr {
	l := p.unary()
	for n := 0; ; n++ {
		t := p.at(p.i)
		prec := p.binaryPrec(t)
		if prec == 0 || prec < minPrec {
			return l
		}
		op := p.next()
		p.chained(n, op)
		if op.Op == OpShl || op.Op == OpShr {
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
	if t.Op == OpNot || t.Op == OpMinus {
		p.enter()
		defer p.leave()
		p.next()
		x := p.unary()
		if n, ok := x.(*NumberLit); ok && t.Op == OpMinus {
			n.Int, n.Float, n.Raw, n.Loc = -n.Int, -n.Float, "-"+n.Raw, p.loc(t.Off)
			return n
		}
		return &Unary{At: At{p.loc(t.Off)}, Op: p.text(t), X: x}
	}
	if t.Op == OpStar {
		p.fail(p.pos(t), "unsupported: splat operator")
	}
	return p.postfix(p.primary())
}

// postfix parses accesses x[k], method calls x.f(...) and selectors x ? {}.
func (p *parser) postfix(x Expr) Expr {
	for n := 0; ; n++ {
		t := p.tok()
		if t.Kind != PUNCT {
			return x
		}
		switch t.Op {
		case OpLBracket, OpDot, OpQuestion:
			p.chained(n, t)
		}
		switch t.Op {
		case OpLBracket:
			if t.Space {
				return x
			}
			p.next()
			a := alloc(&p.a.access)
			*a = Access{At: At{x.loc()}, Target: x}
			a.Keys = p.list(OpRBracket)
			if len(a.Keys) == 0 {
				p.fail(p.pos(t), "syntax error: empty []")
			}
			x = a
			if p.is(OpLBrace) && !p.noBrace {
				if _, isType := a.Target.(*TypeName); isType {
					p.fail(p.pos(p.tok()), "unsupported: resource overrides (Type['title'] { ... })")
				}
			}
		case OpDot:
			p.next()
			n := p.tok()
			if n.Kind != NAME {
				p.fail(p.pos(n), "syntax error: expected a function name after '.', found %s", p.tt.describe(n))
			}
			p.next()
			c := &Call{At: At{p.loc(n.Off)}, Name: p.text(n), Args: []Expr{x}, Method: true}
			p.callRest(c)
			x = c
		case OpQuestion:
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
	if p.is(OpLParen) {
		p.next()
		c.Args = append(c.Args, p.list(OpRParen)...)
	}
	if p.is(OpPipe) {
		c.Lambda = p.lambda()
	}
}

func (p *parser) lambda() *Lambda {
	t := p.expect(OpPipe)
	l := &Lambda{Loc: p.loc(t.Off)}
	for !p.is(OpPipe) {
		l.Params = append(l.Params, p.param())
		if !p.is(OpComma) {
			break
		}
		p.next()
	}
	p.expect(OpPipe)
	l.Body = p.block()
	return l
}

func (p *parser) selector(subject Expr, off int32) Expr {
	p.expect(OpLBrace)
	saveBrace := p.noBrace
	p.noBrace = false
	s := &Selector{At: At{p.loc(off)}, Subject: subject}
	for !p.is(OpRBrace) {
		m := p.expr()
		p.expect(OpFatArrow)
		v := p.expr()
		s.Cases = append(s.Cases, SelectorCase{Match: m, Value: v})
		if !p.is(OpComma) {
			break
		}
		p.next()
	}
	p.noBrace = saveBrace
	p.expect(OpRBrace)
	if len(s.Cases) == 0 {
		p.fail(p.src.Pos(int(off)), "syntax error: selector without cases")
	}
	return s
}

// list parses comma-separated expressions up to the closing token, allowing
// a trailing comma.
func (p *parser) list(closer Op) []Expr {
	saveBrace := p.noBrace
	p.noBrace = false
	base := len(p.a.scratch)
	for !p.is(closer) {
		x := p.expr()
		p.a.scratch = append(p.a.scratch, x)
		if !p.is(OpComma) {
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
	switch t.Op {
	case OpLBracket:
		p.next()
		n := alloc(&p.a.arrays)
		*n = ArrayLit{At: At{p.loc(t.Off)}}
		n.Elems = p.list(OpRBracket)
		return n
	case OpLBrace:
		return p.hash()
	case OpLParen:
		p.next()
		saveBrace := p.noBrace
		p.noBrace = false
		x := p.expr()
		p.noBrace = saveBrace
		p.expect(OpRParen)
		return &Paren{At: At{p.loc(t.Off)}, X: x}
	case OpAt:
		p.next()
		n := p.tok()
		if n.Kind != NAME || p.peek(1).Op != OpLBrace {
			p.fail(p.pos(t), "syntax error: '@' must be followed by a resource declaration like @exec { 'title': }")
		}
		p.next()
		d := p.resource(n, true).(*ResourceDecl)
		d.Loc = p.loc(t.Off)
		return d
	case OpAtAt:
		p.fail(p.pos(t), "unsupported: exported resources")
	case OpAtParen:
		p.fail(p.pos(t), "unsupported: heredocs")
	case OpLLCollect, OpRRCollect:
		p.fail(p.pos(t), "unsupported: exported resource collectors")
	case OpPlusArrow:
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
		if p.is(OpLBrace) {
			return p.resource(t, false)
		}
		p.fail(p.pos(t), "syntax error: class definitions are only allowed as statements")
	case "node":
		p.fail(p.pos(t), "Classes, definitions, and nodes may only appear at toplevel or inside other classes")
	case "function":
		p.fail(p.pos(t), "unsupported: function definitions")
	case "define":
		p.fail(p.pos(t), "syntax error: define is only allowed as a statement")
	case "and", "or", "in", "elsif", "else", "inherits":
		p.fail(p.pos(t), "syntax error: unexpected keyword '%s'", p.text(t))
	}
	if p.is(OpLParen) {
		c := &Call{At: At{p.loc(t.Off)}, Name: p.text(t)}
		p.callRest(c)
		return c
	}
	if p.is(OpLBrace) && !p.noBrace {
		return p.resource(t, false)
	}
	if p.is(OpPipe) && Functions[p.text(t)] {
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
	case p.is(OpLCollect):
		return p.collector(t, name)
	case p.is(OpLLCollect):
		p.fail(p.pos(p.tok()), "unsupported: exported resource collectors")
	case p.is(OpLBrace) && !p.noBrace:
		p.next()
		d := &ResourceDefaults{At: At{p.loc(t.Off)}, Type: name}
		d.Attrs = p.attrs()
		p.expect(OpRBrace)
		return d
	}
	n := alloc(&p.a.types)
	*n = TypeName{At: At{p.loc(t.Off)}, Name: name}
	return n
}

func (p *parser) collector(t *Token, name string) Expr {
	p.expect(OpLCollect)
	c := &Collector{At: At{p.loc(t.Off)}, Type: name}
	if !p.is(OpRCollect) {
		c.Query = p.queryOr()
	}
	p.expect(OpRCollect)
	if p.is(OpLBrace) && !p.noBrace {
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
	if p.is(OpLParen) {
		p.next()
		x := p.queryOr()
		p.expect(OpRParen)
		return &Paren{At: At{p.loc(t.Off)}, X: x}
	}
	if t.Kind != NAME || keywords[p.text(t)] && p.text(t) != "default" {
		p.fail(p.pos(t), "syntax error: expected an attribute name in collector query, found %s", p.tt.describe(t))
	}
	p.next()
	op := p.tok()
	if !(p.is(OpEq) || p.is(OpNe)) {
		p.fail(p.pos(op), "syntax error: expected '==' or '!=' in collector query, found %s", p.tt.describe(op))
	}
	p.next()
	v := p.postfix(p.primary())
	return &Binary{At: At{p.loc(op.Off)}, Op: p.text(op), L: &NameLit{At: At{p.loc(t.Off)}, Name: p.text(t)}, R: v}
}

// resource parses the bodies of `type { title: attrs; ... }`; the type
// token has been consumed.
func (p *parser) resource(typ *Token, virtual bool) Expr {
	open := p.expect(OpLBrace)
	saveBrace := p.noBrace
	p.noBrace = false
	d := alloc(&p.a.decls)
	*d = ResourceDecl{At: At{p.loc(typ.Off)}, Type: strings.TrimPrefix(strings.ToLower(p.text(typ)), "::"), Virtual: virtual}
	for !p.is(OpRBrace) {
		bp := p.loc(p.tok().Off)
		title := p.expr()
		if !p.is(OpColon) {
			p.fail(p.pos(p.tok()), "syntax error: expected ':' after the resource title, found %s", p.tt.describe(p.tok()))
		}
		p.next()
		body := ResourceBody{Loc: bp, Title: title}
		body.Attrs = p.attrs()
		d.Bodies = append(d.Bodies, body)
		if !p.is(OpSemicolon) {
			break
		}
		p.next()
	}
	p.noBrace = saveBrace
	p.expect(OpRBrace)
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
	for !p.is(OpRBrace) && !p.is(OpSemicolon) {
		t := p.tok()
		if p.is(OpStar) {
			p.fail(p.pos(t), "unsupported: attribute splat (* => hash)")
		}
		if t.Kind != NAME {
			p.fail(p.pos(t), "syntax error: expected an attribute name, found %s", p.tt.describe(t))
		}
		p.next()
		if p.is(OpPlusArrow) {
			p.fail(p.pos(p.tok()), "unsupported: +> (attribute append)")
		}
		p.expect(OpFatArrow)
		v := p.expr()
		p.a.attrScratch = append(p.a.attrScratch, Attr{Loc: p.loc(t.Off), Name: p.text(t), Value: v})
		if !p.is(OpComma) {
			break
		}
		p.next()
	}
	return carve(&p.a.attrs, p.a.attrScratch[base:])
}

func (p *parser) hash() Expr {
	t := p.expect(OpLBrace)
	saveBrace := p.noBrace
	p.noBrace = false
	h := &HashLit{At: At{p.loc(t.Off)}}
	for !p.is(OpRBrace) {
		k := p.expr()
		p.expect(OpFatArrow)
		v := p.expr()
		h.Entries = append(h.Entries, HashEntry{Key: k, Value: v})
		if !p.is(OpComma) {
			break
		}
		p.next()
	}
	p.noBrace = saveBrace
	p.expect(OpRBrace)
	return h
}
