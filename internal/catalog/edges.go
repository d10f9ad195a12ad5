package catalog

// edge is the compact form of a relationship: records by number, the kind
// and what made it by number (edgeKinds, vias).
type edge struct {
	from, to int32
	pos      srcPos
	kind     uint8
	via      uint8
}

// Edge kinds by number.
const (
	ekBefore uint8 = iota
	ekNotify
	ekContain
	ekAuto
)

var edgeKinds = [...]EdgeKind{ekBefore: Before, ekNotify: Notify, ekContain: Contain, ekAuto: Auto}

// vias are what may make an edge (Edge.Via).
var vias = []string{
	"before", "require", "notify", "subscribe", "->", "~>", "<-", "<~",
	"require function", "contain", "autorequire parent directory", "autorequire cwd",
}

// viaOf returns the number of via, one of vias.
func viaOf(via string) uint8 {
	for i, v := range vias {
		if v == via {
			return uint8(i)
		}
	}
	panic("catalog: unknown edge origin " + via)
}
