package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"sort"
)

// cmdDoc describes one listed command for shell completion and the
// manual, read from the same tables the command runs from: its entry in
// the dispatch table, its synopsis and the flag set it parses.
type cmdDoc struct {
	name     string
	summary  string
	synopsis string
	flags    []flagDoc
	// words are the fixed first arguments (get jobs, import crontab).
	words []string
}

// flagDoc is one flag of a command.
type flagDoc struct {
	name  string
	arg   string // the value's name, "" for a switch
	usage string
	def   string
}

// subcommandWords are the fixed words some commands take as their first
// argument; a test checks each appears in the command's summary or
// synopsis.
var subcommandWords = map[string][]string{
	"get":        {"jobs", "runs", "resources", "events", "applies", "windows", "nodes"},
	"import":     {"crontab", "cronjob", "timer"},
	"describe":   {"job", "resource", "apply"},
	"wave":       {"status", "pause", "resume", "abort"},
	"completion": completionShells,
}

// extraFlagProbes are further command lines whose --help shows flags of
// another mode of the command: apply --server parses its own flag set.
var extraFlagProbes = map[string][][]string{
	"apply": {{"--server", "http://127.0.0.1:8080", "--help"}},
}

// commandFlags returns the flags command name parses: it runs the command
// with --help, which every command answers from its flag set before
// doing anything else, and takes that flag set from the answer.
func commandFlags(name string) []flagDoc {
	c := commands[name]
	seen := map[string]bool{}
	var out []flagDoc
	for _, args := range append([][]string{{"--help"}}, extraFlagProbes[name]...) {
		e := &env{stdin: eofReader{}, stdout: io.Discard, stderr: io.Discard}
		var h *helpError
		if !errors.As(c.run(context.Background(), e, args), &h) || h.fs == nil {
			continue
		}
		h.fs.VisitAll(func(f *flag.Flag) {
			if seen[f.Name] {
				return
			}
			seen[f.Name] = true
			arg, usage := flag.UnquoteUsage(f)
			if isBoolFlag(f) {
				arg = ""
			} else if arg == "" {
				arg = "value"
			}
			def := f.DefValue
			if arg == "" && def == "false" {
				def = ""
			}
			out = append(out, flagDoc{name: f.Name, arg: arg, usage: usage, def: def})
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// isBoolFlag reports whether f is a switch, given without a value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// eofReader is an empty standard input.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// commandDocs describes every listed command, sorted by name.
func commandDocs() []cmdDoc {
	var out []cmdDoc
	for _, n := range visibleCommands() {
		out = append(out, cmdDoc{name: n, summary: commands[n].summary, synopsis: synopses[n],
			flags: commandFlags(n), words: subcommandWords[n]})
	}
	return out
}

// dashName is how a flag is written on the command line: -o for one
// letter, --name for the rest.
func dashName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
