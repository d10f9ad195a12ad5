// Package nodeselect provides node labels and the selector grammar that
// picks nodes of a cluster by name or by label: `any`, `all`, a node name,
// `k=v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, joined by commas (AND).
// Label keys and values follow the Kubernetes label syntax. The package is
// pure: it parses and matches, it never looks at a store or the network.
package nodeselect

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Limits of the Kubernetes label syntax.
const (
	maxNameLen   = 63
	maxPrefixLen = 253
)

// CheckKey reports whether k is a valid label key: an optional DNS
// subdomain prefix and a slash, then a name of at most 63 characters that
// starts and ends with a letter or digit and has only letters, digits,
// '-', '_' and '.' inside.
func CheckKey(k string) error {
	if k == "" {
		return fmt.Errorf("label key is empty")
	}
	name := k
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		prefix := k[:i]
		name = k[i+1:]
		if err := checkPrefix(prefix); err != nil {
			return fmt.Errorf("label key %q: prefix %w", k, err)
		}
	}
	if name == "" {
		return fmt.Errorf("label key %q: name after the prefix is empty", k)
	}
	if err := checkName(name); err != nil {
		return fmt.Errorf("label key %q: %w", k, err)
	}
	return nil
}

// CheckValue reports whether v is a valid label value: empty, or at most
// 63 characters that start and end with a letter or digit and have only
// letters, digits, '-', '_' and '.' inside.
func CheckValue(v string) error {
	if v == "" {
		return nil
	}
	if err := checkName(v); err != nil {
		return fmt.Errorf("label value %q: %w", v, err)
	}
	return nil
}

// checkName checks a label name or value (non-empty).
func checkName(s string) error {
	if len(s) > maxNameLen {
		return fmt.Errorf("longer than %d characters", maxNameLen)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case alnum(c):
		case c == '-' || c == '_' || c == '.':
			if i == 0 || i == len(s)-1 {
				return fmt.Errorf("must start and end with a letter or digit")
			}
		default:
			return fmt.Errorf("character %q at %d: want letters, digits, '-', '_' or '.'", c, i+1)
		}
	}
	return nil
}

// checkPrefix checks a key's prefix: a DNS subdomain (lower-case labels
// of letters, digits and '-', joined by dots).
func checkPrefix(p string) error {
	if p == "" {
		return fmt.Errorf("is empty")
	}
	if len(p) > maxPrefixLen {
		return fmt.Errorf("is longer than %d characters", maxPrefixLen)
	}
	for _, part := range strings.Split(p, ".") {
		if part == "" || part[0] == '-' || part[len(part)-1] == '-' {
			return fmt.Errorf("%q is not a DNS subdomain", p)
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("%q is not a DNS subdomain (lower-case letters, digits, '-' and '.')", p)
			}
		}
	}
	return nil
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ParseLabel parses "KEY=VALUE" (the form of serve's --node-label).
func ParseLabel(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("%q is not KEY=VALUE", s)
	}
	if err := CheckKey(k); err != nil {
		return "", "", err
	}
	if err := CheckValue(v); err != nil {
		return "", "", err
	}
	return k, v, nil
}

// Labels is a node's label set.
type Labels map[string]string

// String renders l as "k=v,k=v" sorted by key ("" when empty), the form
// the CLI shows and selectors reuse.
func (l Labels) String() string {
	keys := slices.Sorted(maps.Keys(l))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

// Equal reports whether l and m hold the same labels (nil equals empty).
func (l Labels) Equal(m Labels) bool {
	if len(l) != len(m) {
		return false
	}
	for k, v := range l {
		if w, ok := m[k]; !ok || w != v {
			return false
		}
	}
	return true
}
