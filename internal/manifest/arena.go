package manifest

// arena hands out syntax tree nodes and exactly sized slices from chunks,
// so that parsing a file costs a few allocations per kind of node instead
// of several per token. Chunks double in size up to a bound, so a small file
// wastes little and a large one is not held whole by a few live nodes:
// nodes stay valid as long as they are referenced, and a chunk lives while
// any node in it does.
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

// chunk is the most nodes of one kind allocated at a time.
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
	if cap(*buf)-len(*buf) < n {
		if n > chunk/4 {
			return append([]T(nil), src...)
		}
		*buf = make([]T, 0, max(4*n, min(chunk, 2*cap(*buf))))
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

// fresh forgets a's chunks, keeping its scratch stacks as they are: the
// nodes allocated next share no chunk with those allocated before.
func (a *arena) fresh() {
	*a = arena{scratch: a.scratch, attrScratch: a.attrScratch}
}

// truncate drops what failed statements left on the scratch stacks.
func (a *arena) truncate(scratch, attrs int) {
	clear(a.scratch[scratch:])
	a.scratch = a.scratch[:scratch]
	clear(a.attrScratch[attrs:])
	a.attrScratch = a.attrScratch[:attrs]
}

// pop clears stack above height n, so that it keeps nothing alive, and
// cuts it there.
func pop[T any](stack []T, n int) []T {
	clear(stack[n:])
	return stack[:n]
}
