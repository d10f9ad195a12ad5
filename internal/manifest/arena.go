package manifest

// arena hands out syntax tree nodes and exactly sized slices from large
// chunks, so that parsing a file costs a few hundred allocations instead of
// several per token. Nodes stay valid as long as the tree is referenced: a
// chunk lives while any node in it does.
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

// chunk is the most nodes of one kind allocated at a time; chunks start
// small and double, so a short file does not pay for a big one's chunks.
const chunk = 256

// alloc returns a pointer to a fresh zero T from *buf, growing it by a new
// chunk when full.
func alloc[T any](buf *[]T) *T {
	if len(*buf) == cap(*buf) {
		*buf = make([]T, 0, max(4, min(chunk, 2*cap(*buf))))
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
	if n > chunk/4 {
		return append([]T(nil), src...)
	}
	if cap(*buf)-len(*buf) < n {
		*buf = make([]T, 0, max(4*n, min(chunk*4, 2*cap(*buf))))
	}
	start := len(*buf)
	*buf = append(*buf, src...)
	return (*buf)[start : start+n : start+n]
}

// truncate drops what failed statements left on the scratch stacks.
func (a *arena) truncate(scratch, attrs int) {
	clear(a.scratch[scratch:])
	a.scratch = a.scratch[:scratch]
	clear(a.attrScratch[attrs:])
	a.attrScratch = a.attrScratch[:attrs]
}
