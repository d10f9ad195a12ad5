package manifest

import (
	"strconv"
	"strings"
)

// Conditionals, numbers and interpolated strings.

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
	p.expect(OpLBrace)
	for !p.is(OpRBrace) {
		o := CaseOption{Loc: p.loc(p.tok().Off)}
		for {
			o.Values = append(o.Values, p.condition())
			if !p.is(OpComma) {
				break
			}
			p.next()
		}
		p.expect(OpColon)
		o.Body = p.block()
		c.Options = append(c.Options, o)
	}
	p.expect(OpRBrace)
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
		parts = p.tt.partsOf(t)
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
			if n.Kind == EOF || n.Op == OpLBracket || n.Op == OpDot {
				toks[0].Kind = VAR
			}
		}
		if len(toks) == 1 {
			p.errs.Add(p.src.Pos(int(part.Off)), "syntax error: empty ${} interpolation")
			continue
		}
		sub := &parser{src: p.src, tt: p.tt, toks: toks, errs: p.errs, depth: p.depth, a: p.a, f: p.f}
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
