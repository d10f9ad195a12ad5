package manifest

// arena hands out syntax tree nodes and exactly sized slices from large
// chunks, so that parsing a file costs a few allocations per kind of node
// instead of several per token. Each file gets its own arena whose first
// chunks are sized from the file's tokens (see size), so a file's nodes of
// one kind usually fill a single chunk with no unused tail. Nodes stay valid
// as long as the tree is referenced: a chunk lives while any node in it does.
type arena struct {
	strs    []StringLit
	types   []TypeName
	access  []Access
	vars    []Var
	names   []NameLit
	arrays  []ArrayLit
	nums    []NumberLit
	bools   []BoolLit
	binary  []Binary
	chains  []Chain
	decls   []ResourceDecl
	interps []Interp
	exprs   []Expr
	attrs   []Attr

	// scratch and attrScratch are stacks on which lists are collected
	// before being carved out at their final size.
	scratch     []Expr
	attrScratch []Attr
}

// chunk is the most nodes of one kind allocated at a time when a file needs
// more than its tokens promised.
const chunk = 256

// alloc returns a pointer to a fresh zero T from *buf, growing it by a new
// chunk when full.
func alloc[T any](buf *[]T) *T {
	if len(*buf) == cap(*buf) {
		*buf = make([]T, 0, max(4, min(chunk, cap(*buf)/2)))
	}
	*buf = (*buf)[:len(*buf)+1]
	return &(*buf)[len(*buf)-1]
}

// carve copies src into an exactly sized slice cut from *buf (with its
// capacity capped, so appending to it never overwrites a neighbour).
func carve[T any](buf *[]T, src []T) []T {
	n := len(src)
	if n == 0 {
		return nil
	}
	if cap(*buf)-len(*buf) < n {
		if n > chunk/4 {
			return append([]T(nil), src...)
		}
		*buf = make([]T, 0, max(4*n, min(chunk, cap(*buf)/2)))
	}
	start := len(*buf)
	*buf = append(*buf, src...)
	return (*buf)[start : start+n : start+n]
}

// reset returns an arena with a's (empty) scratch stacks and no chunks, for
// the next parse.
func (a *arena) reset() arena {
	return arena{scratch: a.scratch[:0], attrScratch: a.attrScratch[:0]}
}

// truncate drops what failed statements left on the scratch stacks.
func (a *arena) truncate(scratch, attrs int) {
	clear(a.scratch[scratch:])
	a.scratch = a.scratch[:scratch]
	clear(a.attrScratch[attrs:])
	a.attrScratch = a.attrScratch[:attrs]
}

// nodeCounts are upper estimates of how many nodes of each kind a token
// stream parses into.
type nodeCounts struct {
	strs, types, access, vars, names, arrays, nums, bools int
	binary, chains, decls, interps, exprs, attrs          int
}

// size allocates the first chunk of every kind of node at the size that
// the tokens of the whole file (toks, and the pieces of interpolated
// strings in tt) call for.
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

// pop clears stack above height n, so that it keeps nothing alive, and
// cuts it there.
func pop[T any](stack []T, n int) []T {
	clear(stack[n:])
	return stack[:n]
}
