package manifest

// NodeDef is node name, /regex/, default { body }: code that applies only
// to the hosts its names match.
type NodeDef struct {
	At
	Names []NodeName
	Body  []Expr
}

// NodeName is one name of a node definition: a host name (lower-cased, as
// Puppet matches them), a regular expression, or default.
type NodeName struct {
	Loc
	Name    string // the host name, or the pattern of a regular expression
	Regex   bool
	Default bool
}
