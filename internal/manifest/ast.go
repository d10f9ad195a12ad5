package manifest

import "regexp"

// Node is any syntax tree node.
type Node interface {
	Position() Pos
}

// Expr is an expression. In this language statements are expressions too:
// a resource declaration, for instance, evaluates to references to what it
// declares.
type Expr interface {
	Node
	loc() Loc
}

// LocOf returns where e starts, in the compact form nodes store.
func LocOf(e Expr) Loc { return e.loc() }

// File is one parsed manifest.
type File struct {
	Name string
	Body []Expr
}

// At is embedded in every expression node to carry its location; its
// Position method returns where the node starts.
type At struct{ Loc }

func (a At) loc() Loc { return a.Loc }

// StringLit is a string without interpolation.
type StringLit struct {
	At
	Value string
}

// Interp is a double-quoted string with interpolation; Parts are StringLit
// pieces and embedded expressions, concatenated in order.
type Interp struct {
	At
	Parts []Expr
}

// NumberLit is an integer or floating-point literal.
type NumberLit struct {
	At
	Raw     string
	Int     int64
	Float   float64
	IsFloat bool
}

// BoolLit is true or false.
type BoolLit struct {
	At
	Value bool
}

// UndefLit is undef.
type UndefLit struct{ At }

// DefaultLit is the default keyword (in case options and selectors).
type DefaultLit struct{ At }

// RegexLit is /pattern/, compiled with Go's regexp package.
type RegexLit struct {
	At
	Source string
	Re     *regexp.Regexp
}

// NameLit is a bare word such as present or a class name.
type NameLit struct {
	At
	Name string
}

// TypeName is a capitalized type name such as Exec or Class.
type TypeName struct {
	At
	Name string
}

// ArrayLit is [a, b, ...].
type ArrayLit struct {
	At
	Elems []Expr
}

// HashEntry is one key => value pair.
type HashEntry struct {
	Key, Value Expr
}

// HashLit is {k => v, ...}.
type HashLit struct {
	At
	Entries []HashEntry
}

// Var is $name.
type Var struct {
	At
	Name string
}

// Access is Target[Keys...]: $x[0], $h['k'], Exec['a'], Exec['a', 'b'].
type Access struct {
	At
	Target Expr
	Keys   []Expr
}

// Unary is !X or -X.
type Unary struct {
	At
	Op string
	X  Expr
}

// Binary is L Op R for arithmetic, comparison, boolean, in, =~ and !~.
type Binary struct {
	At
	Op   string
	L, R Expr
}

// SelectorCase is one Match => Value entry of a selector.
type SelectorCase struct {
	Match, Value Expr
}

// Selector is Subject ? { match => value, ... }.
type Selector struct {
	At
	Subject Expr
	Cases   []SelectorCase
}

// Assign is $Name = Value.
type Assign struct {
	At
	Name  string
	Value Expr
}

// If is if/elsif/else; an elsif is an If alone in Else.
type If struct {
	At
	Cond Expr
	Then []Expr
	Else []Expr
}

// Unless is unless/else.
type Unless struct {
	At
	Cond Expr
	Then []Expr
	Else []Expr
}

// CaseOption is one "v1, v2: { body }" arm of a case.
type CaseOption struct {
	Loc
	Values []Expr
	Body   []Expr
}

// Case is case Subject { options }.
type Case struct {
	At
	Subject Expr
	Options []CaseOption
}

// Attr is one attribute => value in a resource body or defaults.
type Attr struct {
	Loc
	Name  string
	Value Expr
}

// ResourceBody is one "title: attrs" body of a declaration.
type ResourceBody struct {
	Loc
	Title Expr
	Attrs []Attr
}

// ResourceDecl declares resources of Type (lower case, e.g. exec, class or
// a defined type) with one or more bodies; Virtual marks @type.
type ResourceDecl struct {
	At
	Type    string
	Virtual bool
	Bodies  []ResourceBody
}

// ResourceDefaults is Type { attr => value } (Type capitalized as written).
type ResourceDefaults struct {
	At
	Type  string
	Attrs []Attr
}

// Param is a class or define parameter, with optional type and default.
type Param struct {
	Loc
	Name    string
	Type    Expr // nil when untyped; a TypeName or Access on a TypeName
	Default Expr // nil when required
}

// ClassDef is class Name(params) { body }.
type ClassDef struct {
	At
	Name   string
	Params []Param
	Body   []Expr
}

// DefineDef is define Name(params) { body }.
type DefineDef struct {
	At
	Name   string
	Params []Param
	Body   []Expr
}

// Lambda is |$a, $b| { body }.
type Lambda struct {
	Loc
	Params []Param
	Body   []Expr
}

// Call is a function call: name(args), name args (statement form), or the
// method form Args[0].name(rest); Lambda is the optional block.
type Call struct {
	At
	Name   string
	Args   []Expr
	Lambda *Lambda
	Method bool
}

// Collector is Type <| Query |>; Query is nil for all resources of the type.
type Collector struct {
	At
	Type  string
	Query Expr
}

// Chain is L Op R with Op one of -> ~> <- <~.
type Chain struct {
	At
	Op   string
	L, R Expr
}

// Paren is a parenthesized expression; it keeps collector queries' grouping.
type Paren struct {
	At
	X Expr
}
