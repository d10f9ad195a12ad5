package importer

import (
	"path"
	"regexp"
	"strings"
)

// envChain is a crontab's environment as the lines so far set it, shared
// by the jobs through manifest variables: each change that an entry
// follows declares one variable holding the previous one plus the
// changed names, so the manifest grows with the crontab, not with
// (environment lines × entries).
type envChain struct {
	stem    string            // variable names are $STEM_env_N
	vals    map[string]string // the environment now
	pending map[string]string // set since the last variable
	n       int               // variables declared
	decl    string            // a declaration not yet written
	size    int               // the environment's size written out as a hash
}

// varStemCleaner replaces what a variable name may not contain.
var varStemCleaner = regexp.MustCompile(`[^a-z0-9_]+`)

// varStem names an import's variables after its prefix or file, so that
// imports loaded together do not assign the same variable.
func varStem(prefix, file string) string {
	s := prefix
	if s == "" {
		s = path.Base(file)
	}
	s = strings.Trim(varStemCleaner.ReplaceAllString(strings.ToLower(s), "_"), "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "crontab_" + s
	}
	return strings.TrimSuffix(s, "_")
}

func newEnvChain(stem string) *envChain {
	return &envChain{stem: stem, vals: map[string]string{}, pending: map[string]string{}}
}

// set records NAME=value.
func (c *envChain) set(name, value string) {
	if old, ok := c.vals[name]; ok {
		c.size -= len(quote(old))
	} else {
		c.size += len(quote(name)) + len(" => , ")
	}
	c.size += len(quote(value))
	c.vals[name] = value
	c.pending[name] = value
}

// ref returns the variable holding the environment now ("" when empty),
// declaring it (for the next declare) when it changed since the last one.
func (c *envChain) ref() string {
	if len(c.vals) == 0 {
		return ""
	}
	if len(c.pending) > 0 {
		prev := c.name()
		c.n++
		c.decl = "\n" + c.name() + " = "
		if c.n > 1 {
			c.decl += prev + " + "
		}
		c.decl += quoteHash(c.pending) + "\n"
		c.pending = map[string]string{}
	}
	return c.name()
}

func (c *envChain) name() string { return "$" + c.stem + "_env_" + itoa(int64(c.n)) }

// declare returns the declaration ref made, once.
func (c *envChain) declare() string {
	d := c.decl
	c.decl = ""
	return d
}
