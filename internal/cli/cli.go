// Package cli implements almanac's command-line interface. Each command lives
// in its own file; Main dispatches on the first argument. Commands that talk to
// a running daemon do so only through the API client.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/almanac-sh/almanac/internal/termtext"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/daemon"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/inputfile"
	"github.com/almanac-sh/almanac/internal/migrate"
)

// Exit codes shared by every command.
const (
	exitOK      = 0
	exitFailure = 1 // a failed apply or validation
	exitUsage   = 2 // bad flags, arguments or input
	// ExitSchemaTooNew: the database's schema was contracted past what
	// this binary knows (a downgrade). Restarting cannot help, so the
	// shipped systemd unit lists it in RestartPreventExitStatus= (78 is
	// sysexits' EX_CONFIG).
	ExitSchemaTooNew = 78
)

// env is what a command runs with.
type env struct {
	stdin  io.Reader // the process's standard input, for "-" arguments
	stdout io.Writer
	stderr io.Writer
	clock  clock.Clock // nil means the real clock
}

// now returns the current instant from the env's clock.
func (e *env) now() time.Time { return e.clk().Now() }

// clk returns the env's clock, the real one unless a test set another.
func (e *env) clk() clock.Clock {
	if e.clock == nil {
		return clock.Real{}
	}
	return e.clock
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, e *env, args []string) error
	// hidden commands run, but appear in no list: not in help, shell
	// completion or the manual.
	hidden bool
}

// commands is the dispatch table. Each command registers itself from an init
// function in the file named for it, so adding a command touches one file.
var commands = map[string]command{}

// register adds a command to the dispatch table; it panics on a duplicate name,
// which is a programming error caught by any test run.
func register(name, summary string, run func(ctx context.Context, e *env, args []string) error) {
	if _, dup := commands[name]; dup {
		panic("cli: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// registerHidden adds a command that works but is listed nowhere.
func registerHidden(name, summary string, run func(ctx context.Context, e *env, args []string) error) {
	register(name, summary, run)
	c := commands[name]
	c.hidden = true
	commands[name] = c
}

// visibleCommands returns the names of the listed commands, sorted.
func visibleCommands() []string {
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Version is set at build time with -ldflags "-X .../cli.Version=...".
var Version = "dev"

// Revision is the VCS commit ("COMMIT" or "COMMIT-modified"), set at build
// time with -ldflags "-X .../cli.Revision=..." where the toolchain records
// none itself (a git worktree, -buildvcs=false); see package buildinfo.
var Revision = ""

// usageError marks an error caused by the caller's input: exit code 2.
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// usagef returns a usage error (exit 2) with a formatted message.
func usagef(format string, a ...any) error {
	return &usageError{fmt.Errorf(format, a...)}
}

// exitError carries a specific exit code whose message, if any, was already printed.
type exitError struct {
	code int
	err  error
}

func (x *exitError) Error() string {
	if x.err == nil {
		return fmt.Sprintf("exit status %d", x.code)
	}
	return x.err.Error()
}
func (x *exitError) Unwrap() error { return x.err }

// Main runs the command line args (without the program name) and returns the
// process exit code. It never panics on user input.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdin: os.Stdin, stdout: stdout, stderr: stderr}
	if len(args) == 2 && args[0] == "help" {
		if _, ok := commands[args[1]]; !ok {
			fmt.Fprintf(stderr, "almanac: help: unknown command %q (run 'almanac help' for the list)\n", args[1])
			return exitUsage
		}
		args = []string{args[1], "--help"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "almanac: unknown command %q (run 'almanac help' for the list)\n", args[0])
		return exitUsage
	}
	maxFile := int64(inputfile.DefaultMaxSize)
	if v := os.Getenv("ALMANAC_MAX_FILE_SIZE"); v != "" {
		n, err := inputfile.ParseSize(v)
		if err != nil {
			fmt.Fprintf(stderr, "almanac: ALMANAC_MAX_FILE_SIZE: %v\n", err)
			return exitUsage
		}
		maxFile = n
	}
	inputfile.SetMaxSize(maxFile)
	var err error
	if args[0] == "serve" {
		err = cmd.run(ctx, e, args[1:])
	} else {
		err = runOneShot(ctx, clock.Real{}, args[0], func() error { return cmd.run(ctx, e, args[1:]) })
	}
	var h *helpError
	if errors.As(err, &h) {
		fmt.Fprint(stdout, h.text)
		return exitOK
	}
	return report(stderr, err)
}

// report prints err as one line and maps it to an exit code.
func report(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var x *exitError
	if errors.As(err, &x) {
		if x.err != nil {
			fmt.Fprintf(stderr, "almanac: %s\n", oneLine(x.err.Error()))
		}
		return x.code
	}
	fmt.Fprintf(stderr, "almanac: %s\n", oneLine(err.Error()))
	var u *usageError
	var du *daemon.UsageError
	if errors.As(err, &u) || errors.As(err, &du) {
		return exitUsage
	}
	if errors.Is(err, migrate.ErrTooOld) {
		return ExitSchemaTooNew
	}
	return exitFailure
}

func oneLine(s string) string {
	return termtext.Escape(strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " "))
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "almanac decides when work may happen and in what order, and then does it.")
	fmt.Fprintln(w, "\nUsage: almanac COMMAND [flags] [args]\n\nCommands:")
	for _, n := range visibleCommands() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// returns the command's help text (a *helpError) on -h or --help.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args with fs, allowing flags after positional arguments
// (`almanac next '0 9 * * *' --tz Europe/Berlin`). A "--" ends flag parsing.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, newHelp(fs)
			}
			return nil, &usageError{fmt.Errorf("%s: %w", fs.Name(), err)}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
