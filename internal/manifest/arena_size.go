package manifest

// nodeCounts are upper estimates of how many nodes of each kind a token
// stream parses into.
type nodeCounts struct {
	strs, types, access, vars, names, arrays, nums, bools int
	binary, chains, decls, interps, exprs, attrs          int
}

// size allocates the first chunk of every kind of node at the size that
// the tokens of the whole file (toks, and the pieces of interpolated
// strings in tt) call for: a file lexed whole before it is parsed (see
// parse) then has its nodes of one kind in a single chunk with no unused
// tail.
func (a *arena) size(tt *texts, toks []Token) {
	var c nodeCounts
	c.add(tt, toks)
	for _, parts := range tt.parts {
		c.exprs += len(parts)
		for _, part := range parts {
			if part.Tokens == nil {
				c.strs++
			} else {
				c.add(tt, part.Tokens)
			}
		}
	}
	a.strs = make([]StringLit, 0, c.strs)
	a.types = make([]TypeName, 0, c.types)
	a.access = make([]Access, 0, c.access)
	a.vars = make([]Var, 0, c.vars)
	a.names = make([]NameLit, 0, c.names)
	a.arrays = make([]ArrayLit, 0, c.arrays)
	a.nums = make([]NumberLit, 0, c.nums)
	a.bools = make([]BoolLit, 0, c.bools)
	a.binary = make([]Binary, 0, c.binary)
	a.chains = make([]Chain, 0, c.chains)
	a.decls = make([]ResourceDecl, 0, c.decls)
	a.interps = make([]Interp, 0, c.interps)
	a.exprs = make([]Expr, 0, c.exprs)
	a.attrs = make([]Attr, 0, c.attrs)
}

// add counts the nodes that toks may parse into.
func (c *nodeCounts) add(tt *texts, toks []Token) {
	for i := range toks {
		t := &toks[i]
		var next *Token
		if i+1 < len(toks) {
			next = &toks[i+1]
		}
		switch t.Kind {
		case STRING:
			c.strs++
		case DQ:
			c.interps++
		case NUMBER:
			c.nums++
		case VAR:
			c.vars++
		case TYPE:
			c.types++
		case NAME:
			switch tt.text(t) {
			case "true", "false":
				c.bools++
				continue
			case "and", "or", "in":
				c.binary++
				continue
			case "if", "elsif", "else", "unless", "case", "default", "undef":
				continue
			}
			switch {
			case next == nil || next.Kind != PUNCT:
				c.names++
			case isPunct(tt, next, "{"):
				c.decls++
			case isPunct(tt, next, "=>"):
				// an attribute name, or a bare word hash key
			default:
				c.names++
			}
		case PUNCT:
			switch tt.text(t) {
			case "=>":
				c.attrs++
			case "->", "~>", "<-", "<~":
				c.chains++
			case "<", "<=", ">", ">=", "==", "!=", "+", "-", "*", "/", "%", "=~", "!~":
				c.binary++
			case "[":
				if t.Space || i == 0 || !endsValue(tt, &toks[i-1]) {
					c.arrays++
				} else {
					c.access++
				}
				c.exprs++
			case "(":
				c.exprs++
			case ",", ";", "}":
				c.exprs++
			}
		}
	}
}

// isPunct reports whether t is the operator op.
func isPunct(tt *texts, t *Token, op string) bool {
	return t.Kind == PUNCT && tt.text(t) == op
}

// endsValue reports whether a '[' right after t indexes t rather than
// opening an array.
func endsValue(tt *texts, t *Token) bool {
	switch t.Kind {
	case VAR, TYPE, NAME, STRING, DQ:
		return true
	case PUNCT:
		op := tt.text(t)
		return op == "]" || op == ")"
	}
	return false
}
