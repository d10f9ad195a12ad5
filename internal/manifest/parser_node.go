package manifest

import (
	"regexp"
	"strconv"
	"strings"
)

// This file parses node definitions.

// hostnameChars are the characters Puppet allows in a node's host name.
var hostnameChars = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// nodeDef parses node NAME, ... { body }. A name is a quoted string, a
// bare (dotted) name, a regular expression or default.
func (p *parser) nodeDef() Expr {
	kw := p.next()
	n := &NodeDef{At: At{p.loc(kw.Off)}}
	for {
		n.Names = append(n.Names, p.nodeName())
		if !p.is(OpComma) {
			break
		}
		p.next()
		if p.is(OpLBrace) { // a trailing comma
			break
		}
	}
	if p.isWord("inherits") {
		p.fail(p.pos(p.tok()), "Node inheritance is not supported in Puppet >= 4.0.0. See http://links.puppet.com/puppet-node-inheritance-deprecation")
	}
	n.Body = p.block()
	return n
}

func (p *parser) nodeName() NodeName {
	t := p.tok()
	nn := NodeName{Loc: p.loc(t.Off)}
	switch t.Kind {
	case STRING:
		p.next()
		nn.Name = p.text(t)
	case DQ:
		p.fail(p.pos(t), "An interpolated expression is not allowed in a hostname of a node")
	case REGEX:
		p.next()
		nn.Name, nn.Regex = p.text(t), true
		if _, err := regexp.Compile(nn.Name); err != nil {
			p.fail(p.pos(t), "invalid regular expression /%s/: %v", nn.Name, err)
		}
		return nn
	case NAME, NUMBER:
		if t.Kind == NAME && p.text(t) == "default" {
			p.next()
			nn.Default = true
			return nn
		}
		// A dotted name: words and numbers joined by '.' without spaces.
		var b strings.Builder
		for {
			w := p.next()
			b.WriteString(p.text(w))
			if !p.is(OpDot) || p.tok().Space {
				break
			}
			d := p.next()
			if k := p.tok().Kind; (k != NAME && k != NUMBER) || p.tok().Space {
				p.fail(p.pos(d), "syntax error: expected a name after '.' in a node name")
			}
			b.WriteByte('.')
		}
		nn.Name = b.String()
	default:
		p.fail(p.pos(t), "syntax error: expected a node name (a string, a name, a regular expression or default), found %s", p.tt.describe(t))
	}
	if !hostnameChars.MatchString(nn.Name) {
		q := strconv.Quote(nn.Name)
		p.fail(p.pos(t), "The hostname '%s' contains illegal characters (only letters, digits, '_', '-', and '.' are allowed)", q[1:len(q)-1])
	}
	nn.Name = strings.ToLower(nn.Name)
	return nn
}
