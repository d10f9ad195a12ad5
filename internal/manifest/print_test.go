package manifest

import (
	"fmt"
	"strings"
)

// sexp renders an expression compactly for table-driven tests.
func sexp(e Expr) string {
	switch n := e.(type) {
	case nil:
		return "nil"
	case *StringLit:
		return fmt.Sprintf("%q", n.Value)
	case *Interp:
		return "(str " + list(n.Parts) + ")"
	case *NumberLit:
		if n.IsFloat {
			return fmt.Sprint(n.Float)
		}
		return fmt.Sprint(n.Int)
	case *BoolLit:
		return fmt.Sprint(n.Value)
	case *UndefLit:
		return "undef"
	case *DefaultLit:
		return "default"
	case *RegexLit:
		return "/" + n.Source + "/"
	case *NameLit:
		return n.Name
	case *TypeName:
		return n.Name
	case *ArrayLit:
		return "[" + list(n.Elems) + "]"
	case *HashLit:
		var parts []string
		for _, en := range n.Entries {
			parts = append(parts, sexp(en.Key)+"=>"+sexp(en.Value))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case *Var:
		return "$" + n.Name
	case *Access:
		return "(at " + sexp(n.Target) + " " + list(n.Keys) + ")"
	case *Unary:
		return "(" + n.Op + " " + sexp(n.X) + ")"
	case *Binary:
		return "(" + n.Op + " " + sexp(n.L) + " " + sexp(n.R) + ")"
	case *Selector:
		var parts []string
		for _, c := range n.Cases {
			parts = append(parts, sexp(c.Match)+"=>"+sexp(c.Value))
		}
		return "(? " + sexp(n.Subject) + " " + strings.Join(parts, " ") + ")"
	case *Assign:
		return "(= $" + n.Name + " " + sexp(n.Value) + ")"
	case *If:
		return "(if " + sexp(n.Cond) + " {" + list(n.Then) + "} {" + list(n.Else) + "})"
	case *Unless:
		return "(unless " + sexp(n.Cond) + " {" + list(n.Then) + "} {" + list(n.Else) + "})"
	case *Case:
		var parts []string
		for _, o := range n.Options {
			parts = append(parts, "["+list(o.Values)+"]:{"+list(o.Body)+"}")
		}
		return "(case " + sexp(n.Subject) + " " + strings.Join(parts, " ") + ")"
	case *ResourceDecl:
		var parts []string
		for _, b := range n.Bodies {
			parts = append(parts, sexp(b.Title)+":"+attrs(b.Attrs))
		}
		v := ""
		if n.Virtual {
			v = "@"
		}
		return "(" + v + n.Type + " " + strings.Join(parts, "; ") + ")"
	case *ResourceDefaults:
		return "(defaults " + n.Type + " " + attrs(n.Attrs) + ")"
	case *ClassDef:
		return "(class " + n.Name + " " + params(n.Params) + " {" + list(n.Body) + "})"
	case *DefineDef:
		return "(define " + n.Name + " " + params(n.Params) + " {" + list(n.Body) + "})"
	case *Call:
		s := "(call " + n.Name + " " + list(n.Args)
		if n.Lambda != nil {
			s += " |" + params(n.Lambda.Params) + "| {" + list(n.Lambda.Body) + "}"
		}
		return s + ")"
	case *Collector:
		return "(collect " + n.Type + " " + sexp(n.Query) + ")"
	case *Chain:
		return "(" + n.Op + " " + sexp(n.L) + " " + sexp(n.R) + ")"
	case *Paren:
		return "(paren " + sexp(n.X) + ")"
	}
	return fmt.Sprintf("<%T>", e)
}

func list(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = sexp(e)
	}
	return strings.Join(parts, " ")
}

func attrs(as []Attr) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, a.Name+"=>"+sexp(a.Value))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func params(ps []Param) string {
	var parts []string
	for _, p := range ps {
		s := "$" + p.Name
		if p.Type != nil {
			s = sexp(p.Type) + " " + s
		}
		if p.Default != nil {
			s += "=" + sexp(p.Default)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}
