package catalog

import "github.com/almanac-sh/almanac/internal/manifest"

// attrPositions records where each attribute of a resource was set. A
// resource has a handful of attributes, so a short slice searched in order
// takes a fraction of a map's memory, which matters with 100,000 resources.
type attrPositions []attrPos

type attrPos struct {
	name string
	pos  manifest.Pos
}

// get returns the position of attribute name, or the zero Pos.
func (a attrPositions) get(name string) manifest.Pos {
	p, _ := a.lookup(name)
	return p
}

// lookup returns the position of attribute name and whether it was set.
func (a attrPositions) lookup(name string) (manifest.Pos, bool) {
	for _, x := range a {
		if x.name == name {
			return x.pos, true
		}
	}
	return manifest.Pos{}, false
}

// set records (or replaces) the position of attribute name.
func (a *attrPositions) set(name string, pos manifest.Pos) {
	for i := range *a {
		if (*a)[i].name == name {
			(*a)[i].pos = pos
			return
		}
	}
	*a = append(*a, attrPos{name, pos})
}
