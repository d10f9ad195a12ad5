package catalog

import (
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/almanac-sh/almanac/internal/manifest"
)

// This file holds the compact form a catalog keeps its resources in: a
// large manifest declares hundreds of thousands of them, so a record takes
// 64 bytes and refers to its type, container, file and tags by number.
// The public Resource of a record is only built when asked for (see
// materialize.go).

// rec is one declared resource or container.
type rec struct {
	title string
	// ap points to the attributes, metaparameters included until finish
	// turns them into the exported parameters; nil for none (a pointer
	// is a third of a slice, and many resources have no attribute). The
	// namevar is not among them when it is the title (fNameTitle).
	ap    *[]attr
	pos   srcPos // where the title was declared
	cont  int32  // the innermost container's record, -1 for none
	scope int32  // the declaring scope in compiler.scopes, -1 for none
	// tags is 0 for the tags a record's type and title make; n > 0 adds
	// the tags of list n-1 (see computeTags); n < 0 is exactly list -n-1.
	tags  int32
	typ   uint16 // in the type table
	flags uint8
}

// Record flags.
const (
	fCont      = 1 << iota // a container: stage, class, node or defined-type instance
	fVirtual               // declared with @ and not (yet) realized
	fDone                  // a defined-type instance whose body was evaluated
	fIncluded              // a class declared include-style, which Puppet gives no position
	fNameTitle             // the namevar is the title, and not among attrs
	fTitleTag              // the title is a valid tag
)

func (r *rec) is(flag uint8) bool { return r.flags&flag != 0 }

// attrs returns the record's attributes; the slice shares their storage.
func (r *rec) attrs() []attr {
	if r.ap == nil {
		return nil
	}
	return *r.ap
}

// setAttrs replaces the record's attributes with a.
func (r *rec) setAttrs(a []attr) {
	switch {
	case len(a) == 0:
		r.ap = nil
	case r.ap == nil:
		r.ap = &a
	default:
		*r.ap = a
	}
}

// attr is one attribute of a record: its value and where it was set.
type attr struct {
	name string
	val  any
	pos  srcPos
}

// find returns the index of attribute name among attrs, or -1.
func findAttr(attrs []attr, name string) int {
	for i := range attrs {
		if attrs[i].name == name {
			return i
		}
	}
	return -1
}

// recChunk is how many records one chunk of the store holds.
const recChunk = 1024

// recStore holds records in fixed chunks, so that growing it never copies
// (or doubles) what it holds and a *rec stays valid.
type recStore struct {
	chunks [][]rec
	n      int
}

// add appends r and returns its index.
func (s *recStore) add(r rec) int32 {
	if s.n%recChunk == 0 {
		s.chunks = append(s.chunks, make([]rec, 0, recChunk))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, r)
	s.n++
	return int32(s.n - 1)
}

// at returns record i.
func (s *recStore) at(i int32) *rec {
	return &s.chunks[i/recChunk][i%recChunk]
}

// len is the number of records.
func (s *recStore) len() int32 { return int32(s.n) }

// srcPos is a compact source position: a manifest of the file table
// (1-based, 0 for no position) and a byte offset in it.
type srcPos struct {
	file uint32
	off  int32
}

// fileTable numbers the manifests positions point into.
type fileTable struct {
	list []*manifest.Source
	idx  map[*manifest.Source]uint32
	// last and lastIdx spare the map lookup for the many positions in
	// a row that fall in one manifest.
	last    *manifest.Source
	lastIdx uint32
}

// at returns the compact form of l.
func (t *fileTable) at(l manifest.Loc) srcPos {
	src := l.Source()
	if src == nil {
		return srcPos{}
	}
	if src != t.last {
		i, ok := t.idx[src]
		if !ok {
			if t.idx == nil {
				t.idx = map[*manifest.Source]uint32{}
			}
			t.list = append(t.list, src)
			i = uint32(len(t.list))
			t.idx[src] = i
		}
		t.last, t.lastIdx = src, i
	}
	return srcPos{file: t.lastIdx, off: int32(l.Offset())}
}

// of returns the compact position of where e starts.
func (t *fileTable) of(e manifest.Expr) srcPos { return t.at(manifest.LocOf(e)) }

// start returns the position of the start of the manifest named name,
// which may have no statement to take it from.
func (t *fileTable) start(name string) srcPos {
	t.list = append(t.list, manifest.NewSource(name, ""))
	return srcPos{file: uint32(len(t.list))}
}

// pos expands p into file:line:col; the zero Pos for no position.
func pos(files []*manifest.Source, p srcPos) manifest.Pos {
	if p.file == 0 {
		return manifest.Pos{}
	}
	return files[p.file-1].Pos(int(p.off))
}

// typeTable numbers the resource types records have.
type typeTable struct {
	names []string
	ids   map[string]uint16
	// namevars are the types' namevars ("" for containers' types).
	namevars []string
}

// id returns the number of type typ, adding it; ok is false when the
// table is full.
func (t *typeTable) id(typ string) (uint16, bool) {
	if i, ok := t.ids[typ]; ok {
		return i, true
	}
	if len(t.names) > math.MaxUint16 {
		return 0, false
	}
	if t.ids == nil {
		t.ids = map[string]uint16{}
	}
	i := uint16(len(t.names))
	t.names = append(t.names, typ)
	nv := ""
	if spec := builtinTypes[typ]; spec != nil {
		nv = spec.namevar
	}
	t.namevars = append(t.namevars, nv)
	t.ids[typ] = i
	return i, true
}

// lookup returns the number of type typ, if a record has it.
func (t *typeTable) lookup(typ string) (uint16, bool) {
	i, ok := t.ids[typ]
	return i, ok
}

// refIndex finds records by type and title: an open-addressing hash table
// of record numbers, a few bytes per record where a map of keys would take
// dozens.
type refIndex struct {
	slots []int32 // record index + 1; 0 is empty
	n     int
	seed  maphash.Seed
}

func (x *refIndex) hash(typ uint16, title string) uint64 {
	return maphash.String(x.seed, title) ^ uint64(typ)*0x9e3779b97f4a7c15
}

// find returns the record of type typ titled title (the lookup key: lower
// case for classes), or -1.
func (x *refIndex) find(recs *recStore, typ uint16, title string) int32 {
	if len(x.slots) == 0 {
		return -1
	}
	mask := uint64(len(x.slots) - 1)
	for h := x.hash(typ, title) & mask; ; h = (h + 1) & mask {
		s := x.slots[h]
		if s == 0 {
			return -1
		}
		if r := recs.at(s - 1); r.typ == typ && r.title == title {
			return s - 1
		}
	}
}

// add indexes record i, which no record of its type and title precedes.
func (x *refIndex) add(recs *recStore, i int32) {
	if (x.n+1)*4 > len(x.slots)*3 {
		x.grow(recs)
	}
	x.put(recs, i)
	x.n++
}

func (x *refIndex) put(recs *recStore, i int32) {
	r := recs.at(i)
	mask := uint64(len(x.slots) - 1)
	h := x.hash(r.typ, r.title) & mask
	for x.slots[h] != 0 {
		h = (h + 1) & mask
	}
	x.slots[h] = i + 1
}

func (x *refIndex) grow(recs *recStore) {
	if len(x.slots) == 0 {
		x.seed = maphash.MakeSeed()
	}
	old := x.slots
	x.slots = make([]int32, max(64, 2*len(old)))
	for _, s := range old {
		if s != 0 {
			x.put(recs, s-1)
		}
	}
}

// keyTitle is the title a reference to type typ is looked up by: classes
// by their lower-case name without a leading ::.
func keyTitle(typ, title string) string {
	if typ == "class" {
		return strings.ToLower(strings.TrimPrefix(title, "::"))
	}
	return title
}

// computeTags returns a record's tags: its type, its title when that is a
// valid tag, then extra, lower-case and without duplicates.
func computeTags(typ, title string, titleTag bool, extra []string) []string {
	tags := make([]string, 0, 2+len(extra))
	add := func(t string) {
		t = strings.ToLower(t)
		if t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	add(typ)
	if titleTag {
		add(title)
	}
	for _, t := range extra {
		add(t)
	}
	return tags
}

// tagsOf returns the tags of record r.
func tagsOf(r *rec, types []string, lists [][]string) []string {
	switch {
	case r.tags < 0:
		return lists[-r.tags-1]
	case r.tags > 0:
		return computeTags(types[r.typ], r.title, r.is(fTitleTag), lists[r.tags-1])
	}
	return computeTags(types[r.typ], r.title, r.is(fTitleTag), nil)
}

// hasTag reports whether record r is tagged want (case-insensitively),
// without building its list of tags.
func hasTag(r *rec, types []string, lists [][]string, want string) bool {
	match := func(t string) bool { return strings.EqualFold(strings.ToLower(t), want) }
	if r.tags < 0 {
		for _, t := range lists[-r.tags-1] {
			if match(t) {
				return true
			}
		}
		return false
	}
	if match(types[r.typ]) || r.is(fTitleTag) && match(r.title) {
		return true
	}
	if r.tags > 0 {
		for _, t := range lists[r.tags-1] {
			if t != "" && match(t) {
				return true
			}
		}
	}
	return false
}
