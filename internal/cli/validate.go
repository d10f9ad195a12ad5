package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/daemon"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/manifestdir"
	"github.com/almanac-sh/almanac/internal/manifestjob"
	"github.com/almanac-sh/almanac/internal/memlimit"
)

func init() {
	register("validate", "parse and compile manifests, check references and cycles", runValidate)
}

// runValidate parses and compiles every FILE as one catalog and reports
// every error as file:line:col: message (exit 1), or a one-line summary.
func runValidate(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("validate")
	asJSON := fs.Bool("json", false, "print the compiled catalog as JSON")
	node := nodeFlag(fs)
	loadWindows := daemon.WindowsFlag(fs)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("validate: no manifest given (usage: almanac validate [--json] [--node NAME] [--windows [NAME=]PATH,...] FILE...)")
	}
	windows, err := loadWindows("validate")
	if err != nil {
		return err
	}
	// Without --json validate only counts and checks: its memory is the
	// compact catalog's, which limitMemory may hold it to.
	cat, warnings, err := compileOrReport(e, "validate", files, hostOptions(*node), windows, !*asJSON)
	if err != nil {
		return err
	}
	if cycles := cat.CycleDetails(); len(cycles) > 0 {
		printCycles(e.stderr, cycles)
		return &exitError{code: exitFailure, err: fmt.Errorf("validate: %d dependency %s", len(cycles), plural(len(cycles), "cycle", "cycles"))}
	}
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, "warning: "+w)
	}
	if *asJSON {
		return writeCatalogJSON(e.stdout, cat)
	}
	resources, relationships := cat.NumApplied(), cat.NumRelationships()
	fmt.Fprintf(e.stdout, "%d %s, %d %s\n", resources, plural(resources, "resource", "resources"),
		relationships, plural(relationships, "relationship", "relationships"))
	return nil
}

// compileOrReport compiles the files for the command cmd and checks
// their jobs as `almanac serve --manifests` does (manifestjob.Check);
// problems in the manifests are printed on stderr, one a line, and fail
// the command with their count. Otherwise it returns the catalog and the
// check's warnings. At most maxReported are printed, so a binary or runaway file
// does not flood the terminal.
//
// opts describe the host compiled for; windows are the named windows the
// daemon would know (validate's --windows), which a job may name as its
// gate; nil for none. checkOnly tells that the catalog will only be
// checked and counted, never built into Resource values (see limitMemory).
func compileOrReport(e *env, cmd string, files []string, opts catalog.Options, windows manifestjob.Windows, checkOnly bool) (*catalog.Catalog, []string, error) {
	cat, warnings, errs, err := compileFiles(cmd, files, opts, windows, checkOnly)
	if err != nil {
		return nil, nil, err
	}
	n := errs.Count()
	for i, pe := range errs {
		if i == maxReported {
			fmt.Fprintf(e.stderr, "... and %d more\n", n-maxReported)
			break
		}
		fmt.Fprintln(e.stderr, pe.Error())
	}
	if n > 0 {
		return nil, nil, &exitError{code: exitFailure, err: fmt.Errorf("%s: %d %s", cmd, n, plural(n, "error", "errors"))}
	}
	return cat, warnings, nil
}

// maxReported bounds how many manifest errors one command prints.
const maxReported = 100

// compileFiles reads, parses and compiles the files for the command cmd
// (manifestdir's pipeline) and checks their jobs (checkOnly as for
// compileOrReport). Problems in the manifests come back as errs; an
// unreadable or binary file is a usage error that names cmd.
func compileFiles(cmd string, paths []string, opts catalog.Options, windows manifestjob.Windows, checkOnly bool) (*catalog.Catalog, []string, manifest.ErrorList, error) {
	in, err := manifestdir.ReadFiles(paths)
	if err != nil {
		return nil, nil, nil, usagef("%s: %v", cmd, err)
	}
	if checkOnly {
		limitMemory(in.Size)
	}
	opts.Schedules = gateNamed(windows)
	cat, err := manifestdir.Compile(in, opts)
	var el manifest.ErrorList
	if errors.As(err, &el) {
		return cat, nil, el, nil
	}
	if err != nil {
		return cat, nil, nil, err
	}
	// Check the job resources the way `almanac serve --manifests` does, so
	// a manifest that validates is one the daemon accepts.
	warnings, err := manifestjob.Check(cat, nil, windows, gateNamed(windows))
	if errors.As(err, &el) {
		return cat, nil, el, nil
	} else if err != nil {
		return cat, nil, nil, err
	}
	return cat, warnings, nil, nil
}

// minMemoryLimit is the least memory limit limitMemory sets.
const minMemoryLimit = 32 << 20

// limitMemory sets the Go runtime's soft memory limit for checking total
// bytes of manifests of memlimit.MinInput or more, unless the user set
// GOMEMLIMIT: memlimit.PerInputByte bytes per input byte, at least
// minMemoryLimit. Unlike memlimit.Bound it counts nothing the process
// held before, as validate holds next to nothing else; the compact
// catalog of a 10 MB manifest of the smallest resources takes about 4.5
// bytes of heap per byte of input at its peak, which keeps validate of
// such a manifest under 8 times its size in resident memory, the
// program's own 26 MB included. Smaller inputs leave the collector as it
// is.
func limitMemory(total int) {
	if total < memlimit.MinInput || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(max(int64(total)*memlimit.PerInputByte, minMemoryLimit))
}

// unwrapPath puts a path error as "path: reason", without the operation.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// printCycles prints cycles the way Puppet does, followed by the position
// of every relationship on each cycle.
func printCycles(w io.Writer, cycles []catalog.Cycle) {
	fmt.Fprintf(w, "Found %d dependency %s:\n", len(cycles), plural(len(cycles), "cycle", "cycles"))
	for _, c := range cycles {
		fmt.Fprintf(w, "(%s)\n", strings.Join(c.Path, " => "))
		for _, e := range c.Edges {
			fmt.Fprintf(w, "%s: %s => %s (%s)\n", e.Pos, e.From, e.To, e.Via)
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// jsonCatalog is the --json form of a compiled catalog.
type jsonCatalog struct {
	Resources  []jsonResource `json:"resources"`
	Containers []jsonResource `json:"containers"`
	Edges      []jsonEdge     `json:"edges"`
}

type jsonResource struct {
	Ref        string         `json:"ref"`
	Type       string         `json:"type"`
	Title      string         `json:"title"`
	Parameters map[string]any `json:"parameters"`
	Tags       []string       `json:"tags"`
	Container  string         `json:"container,omitempty"`
	Virtual    bool           `json:"virtual,omitempty"`
	File       string         `json:"file,omitempty"`
	Line       int            `json:"line,omitempty"`
}

type jsonEdge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Kind   string `json:"kind"`
	Via    string `json:"via"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
}

func writeCatalogJSON(w io.Writer, cat *catalog.Catalog) error {
	conv := func(rs []*catalog.Resource) []jsonResource {
		out := make([]jsonResource, 0, len(rs))
		for _, r := range rs {
			out = append(out, jsonResource{Ref: r.Ref(), Type: r.Type, Title: r.Title, Parameters: r.Params,
				Tags: r.Tags, Container: r.Container, Virtual: r.Virtual, File: r.Pos.File, Line: r.Pos.Line})
		}
		return out
	}
	jc := jsonCatalog{Resources: conv(cat.Resources()), Containers: conv(cat.Containers()), Edges: []jsonEdge{}}
	for _, e := range cat.Edges() {
		jc.Edges = append(jc.Edges, jsonEdge{Source: e.From, Target: e.To, Kind: string(e.Kind), Via: e.Via, File: e.Pos.File, Line: e.Pos.Line})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jc)
}

// gateNamed reports the names windows resolves, as catalog.Options and
// manifestjob want them; nil for no windows.
func gateNamed(windows manifestjob.Windows) func(name string) bool {
	if windows == nil {
		return nil
	}
	return func(name string) bool { _, ok := windows(name); return ok }
}
