// Package flagfile sets the flags of a flag.FlagSet from a TOML file, so a
// command's every flag also has a configuration-file key without a table of
// them to keep in step: the key of --some-flag is some_flag. A flag whose
// usage text says it is repeatable takes an array; a boolean flag takes a
// boolean; any other flag takes a string or a number, given to its Set
// method exactly as the command line would. Flags given on the command line
// override the file; see [File.Apply].
package flagfile

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/almanac-sh/almanac/internal/tomldepth"
)

// MaxSize bounds a configuration file and a secret file.
const MaxSize = 1 << 20

// Key is the file key of flag name: '-' becomes '_'.
func Key(name string) string { return strings.ReplaceAll(name, "-", "_") }

// Repeatable reports whether f may be given more than once; in a file it
// then takes an array. The rule is the flag's own usage text, which says
// "repeatable" for every such flag.
func Repeatable(f *flag.Flag) bool { return strings.Contains(f.Usage, "repeatable") }

// isBool reports whether f is a boolean flag (given without a value).
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// File is a parsed configuration file: its top-level keys in file order.
type File struct {
	name    string
	src     string
	entries []entry
	mode    fs.FileMode // permission bits of the file read; 0 for Parse
}

// entry is one key = value of the file.
type entry struct {
	key       string
	value     any
	line, col int
}

// Error is a mistake in a configuration file, at a line and column.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Read reads and parses the TOML file at path (at most MaxSize bytes),
// which must be trusted (see [CheckTrust]).
func Read(path string) (*File, error) {
	src, fi, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(path, src)
	if err != nil {
		return nil, err
	}
	f.mode = fi.Mode().Perm()
	return f, nil
}

// readBounded reads the file at path, refusing one over MaxSize or one
// CheckTrust refuses. The checks are made on the open file, so a rename
// between them and the read changes nothing.
func readBounded(path string) (string, fs.FileInfo, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := CheckTrust(path, fi); err != nil {
		return "", nil, err
	}
	b, err := readLimited(path, fh)
	return b, fi, err
}

// readLimited reads r, refusing more than MaxSize bytes.
func readLimited(path string, r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxSize {
		return "", fmt.Errorf("%s: larger than %d bytes", path, MaxSize)
	}
	return string(b), nil
}

var tomlLine = regexp.MustCompile(`line (\d+)`)

// Parse parses src, the text of the file called name. The file must be
// flat: top-level keys only, no tables.
func Parse(name, src string) (*File, error) {
	// Bounded before decoding: the decoder's memory grows with the square
	// of a key's depth, and a 1 MiB file of dotted keys would take
	// gigabytes.
	var deep *tomldepth.Error
	if err := tomldepth.Check(src); errors.As(err, &deep) {
		return nil, &Error{File: name, Line: deep.Line, Col: deep.Col, Msg: deep.Message()}
	}
	var doc map[string]any
	md, err := toml.Decode(src, &doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Line: pe.Position.Line, Col: max(pe.Position.Col, 1), Msg: pe.Message}
		}
		e := &Error{File: name, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
		if m := tomlLine.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Col = 1
		}
		return nil, e
	}
	f := &File{name: name, src: src}
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		top := k[0]
		if seen[top] {
			continue
		}
		seen[top] = true
		line, col := f.position(top)
		if _, isTable := doc[top].(map[string]any); isTable {
			return nil, &Error{File: name, Line: line, Col: col, Msg: fmt.Sprintf("%q is a table; settings are top-level keys (key = value)", top)}
		}
		f.entries = append(f.entries, entry{key: top, value: doc[top], line: line, col: col})
	}
	return f, nil
}

// position finds where key is assigned at the top level of the file: the
// first line that starts with it (bare or quoted) followed by '='.
func (f *File) position(key string) (line, col int) {
	for i, l := range strings.Split(f.src, "\n") {
		trimmed := strings.TrimLeft(l, " \t")
		if h := strings.TrimLeft(trimmed, "[ \t"); len(h) < len(trimmed) && strings.HasPrefix(h, key) {
			return i + 1, len(l) - len(h) + 1 // a table header: [key] or [[key]]
		}
		for _, form := range []string{key, `"` + key + `"`, `'` + key + `'`} {
			if rest, ok := strings.CutPrefix(trimmed, form); ok {
				if r := strings.TrimLeft(rest, " \t"); strings.HasPrefix(r, "=") || strings.HasPrefix(r, ".") {
					return i + 1, len(l) - len(trimmed) + 1
				}
			}
		}
	}
	return 0, 0
}

// errAt returns a positioned error about e.
func (f *File) errAt(e entry, format string, a ...any) error {
	return &Error{File: f.name, Line: e.line, Col: e.col, Msg: fmt.Sprintf("%s: ", e.key) + fmt.Sprintf(format, a...)}
}

// Apply sets the flags of fs that the file names, except those in set
// (the flags given on the command line, which override the file) and
// those in skip (flags with no key, such as the one naming the file). An
// unknown key, a
// value of the wrong type or one the flag refuses is an *Error at the
// key's line and column.
func (f *File) Apply(fs *flag.FlagSet, set, skip map[string]bool) error {
	byKey := map[string]*flag.Flag{}
	fs.VisitAll(func(fl *flag.Flag) {
		if !skip[fl.Name] {
			byKey[Key(fl.Name)] = fl
		}
	})
	for _, e := range f.entries {
		fl, ok := byKey[e.key]
		if !ok {
			return f.errAt(e, "unknown key (the keys are the flags' names with '-' written '_')")
		}
		if set[fl.Name] {
			continue
		}
		if err := f.applyValue(fs, e, fl); err != nil {
			return err
		}
	}
	return nil
}

// applyValue sets fl from e's value.
func (f *File) applyValue(fs *flag.FlagSet, e entry, fl *flag.Flag) error {
	if arr, ok := e.value.([]any); ok {
		if !Repeatable(fl) {
			return f.errAt(e, "takes one value, not an array")
		}
		for _, v := range arr {
			s, err := scalar(v, false)
			if err != nil {
				return f.errAt(e, "%v", err)
			}
			if err := fs.Set(fl.Name, s); err != nil {
				return f.errAt(e, "invalid value %q: %v", s, err)
			}
		}
		return nil
	}
	s, err := scalar(e.value, isBool(fl))
	if err != nil {
		return f.errAt(e, "%v", err)
	}
	if err := fs.Set(fl.Name, s); err != nil {
		return f.errAt(e, "invalid value %q: %v", s, err)
	}
	return nil
}

// scalar renders v as the command line would give it; wantBool says the
// flag is boolean, which takes true or false and nothing else.
func scalar(v any, wantBool bool) (string, error) {
	if wantBool {
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b), nil
		}
		return "", fmt.Errorf("want true or false, not %s", typeName(v))
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("want a string or a number, not %s", typeName(v))
}

// typeName names v's TOML type for an error message.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date"
	}
	return fmt.Sprintf("%T", v)
}

// Keys returns the file's keys in file order.
func (f *File) Keys() []string {
	keys := make([]string, len(f.entries))
	for i, e := range f.entries {
		keys[i] = e.key
	}
	return keys
}

// sortedFlags returns fs's flags sorted by name, without those in skip.
func sortedFlags(fs *flag.FlagSet, skip map[string]bool) []*flag.Flag {
	var out []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !skip[f.Name] {
			out = append(out, f)
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
