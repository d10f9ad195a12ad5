// Package importer turns other schedulers' definitions into almanac
// manifests: Vixie/cronie crontabs and Kubernetes CronJob (and the older
// ScheduledJob) YAML become `job` resources. A converter is pure: bytes in,
// manifest text and warnings out. What cannot be expressed as a job is
// kept as a comment in the manifest and reported as a warning.
package importer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/almanac-sh/almanac/internal/termtext"
)

// Result is a converted file.
type Result struct {
	// Manifest is the manifest text: one `job` resource per imported
	// entry, each preceded by comments saying where it came from.
	Manifest string
	// Warnings name what was not imported or not imported exactly, as
	// "FILE:LINE: message" (or "FILE: document N: message" for YAML).
	Warnings []string
	// Errors name the documents that could not be read at all (invalid
	// YAML, aliases past the bound), as "FILE:LINE: document N: message";
	// the others are still imported.
	Errors []string
	// Notes say what the import assumed (the zone schedules are read in),
	// for the user to check; they are not problems.
	Notes []string
	// Jobs counts the job resources in Manifest.
	Jobs int
}

// warner returns a function that records a warning about file at a line.
func (r *Result) warner(file string) func(line int, format string, a ...any) {
	return func(line int, format string, a ...any) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%s:%d: %s", file, line, fmt.Sprintf(format, a...)))
	}
}

// add writes j to b after a blank line and counts it.
func (r *Result) add(b *strings.Builder, j *job) {
	b.WriteString("\n")
	j.write(b)
	r.Jobs++
}

// job is one job resource to write.
type job struct {
	name     string
	comments []string // written above the resource, one "# " line each
	attrs    []attr
}

type attr struct {
	name  string
	value string // already in manifest syntax
}

func (j *job) set(name, value string) { j.attrs = append(j.attrs, attr{name, value}) }

// write appends j to b as a `job` resource with aligned attributes.
func (j *job) write(b *strings.Builder) {
	for _, c := range j.comments {
		// A comment quotes the input too; its control characters are
		// written as escapes, as in quote.
		for _, line := range strings.Split(termtext.Escape(c), "\n") {
			b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
		}
	}
	width := 0
	for _, a := range j.attrs {
		width = max(width, len(a.name))
	}
	fmt.Fprintf(b, "job { %s:\n", quote(j.name))
	for _, a := range j.attrs {
		fmt.Fprintf(b, "  %-*s => %s,\n", width, a.name, a.value)
	}
	b.WriteString("}\n")
}

// quoteEscaper escapes what a single-quoted manifest string may not hold.
var quoteEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// quote is s as a manifest string: single-quoted, or double-quoted with
// escapes when s holds a control character other than tab and newline
// (a NUL, an escape sequence, a carriage return), which a manifest must
// not hold raw: a NUL does not parse, and the others would reach a
// terminal that shows the manifest.
func quote(s string) string {
	if !hasControl(s) {
		return "'" + quoteEscaper.Replace(s) + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"' || r == '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case isControl(r):
			fmt.Fprintf(&b, `\u{%X}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// isControl reports whether r is a C0 or C1 control character or DEL.
func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }

// hasControl reports whether s holds a control character other than tab
// and newline, or is not valid UTF-8.
func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if isControl(r) && r != '\t' && r != '\n' {
			return true
		}
	}
	return false
}

// quoteList is ss as a manifest array of strings.
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// quoteHash is m as a manifest hash of strings, keys sorted.
func quoteHash(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quote(k) + " => " + quote(m[k])
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
