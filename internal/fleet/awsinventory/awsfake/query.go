package awsfake

import (
	"encoding/xml"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// query is a Query API request's parameters.
type query url.Values

func (q query) get(k string) string { return url.Values(q).Get(k) }

func (q query) action() string { return q.get("Action") }

// list returns the members prefix.1, prefix.2, ... in order.
func (q query) list(prefix string) []string {
	var out []string
	for i := 1; ; i++ {
		v, ok := q[prefix+"."+strconv.Itoa(i)]
		if !ok || len(v) == 0 {
			return out
		}
		out = append(out, v[0])
	}
}

// filters returns EC2's Filter.N.Name and Filter.N.Value.M parameters.
func (q query) filters() map[string][]string {
	out := map[string][]string{}
	for i := 1; ; i++ {
		name := q.get("Filter." + strconv.Itoa(i) + ".Name")
		if name == "" {
			return out
		}
		out[name] = append(out[name], q.list("Filter."+strconv.Itoa(i)+".Value")...)
	}
}

// page returns the window [start, end) of n items the request asks for,
// and the token of the next page ("" for none). token is the request's
// NextToken or Marker, limit its MaxResults or MaxRecords.
func page(n int, token, limit string, def, forced int) (start, end int, next string, err error) {
	size := def
	if limit != "" {
		if size, err = strconv.Atoi(limit); err != nil || size < 1 {
			return 0, 0, "", fmt.Errorf("invalid page size %q", limit)
		}
	}
	if forced > 0 && forced < size {
		size = forced
	}
	if token != "" {
		if start, err = strconv.Atoi(token); err != nil || start < 0 || start > n {
			return 0, 0, "", fmt.Errorf("invalid pagination token %q", token)
		}
	}
	end = min(start+size, n)
	if end < n {
		next = strconv.Itoa(end)
	}
	return start, end, next, nil
}

// glob matches s against an EC2 filter value, where * matches any run of
// characters and ? any one character.
func glob(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if glob(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && glob(pattern[1:], s[1:])
	}
	return s != "" && s[0] == pattern[0] && glob(pattern[1:], s[1:])
}

// x writes XML-escaped text.
func x(b *strings.Builder, s string) {
	_ = xml.EscapeText(b, []byte(s))
}

// el writes <name>text</name>.
func el(b *strings.Builder, name, text string) {
	b.WriteString("<" + name + ">")
	x(b, text)
	b.WriteString("</" + name + ">")
}

// requestID is a request id in the shape AWS uses.
func requestID(n int) string {
	return fmt.Sprintf("%08x-4d2a-4c1f-9a5e-%012x", n, n*7919)
}

// writeTags writes tags sorted by key as a list element named list, one
// item element a tag with its key and value elements: EC2 and RDS spell the
// same list differently (tagSet/item/key/value, TagList/Tag/Key/Value).
func writeTags(b *strings.Builder, tags map[string]string, list, item, key, value string) {
	b.WriteString("<" + list + ">")
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		b.WriteString("<" + item + ">")
		el(b, key, k)
		el(b, value, tags[k])
		b.WriteString("</" + item + ">")
	}
	b.WriteString("</" + list + ">")
}
