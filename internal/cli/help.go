package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"
)

// synopses is each command's argument line, printed by 'almanac CMD --help'
// and 'almanac help CMD' above the command's flags.
var synopses = map[string]string{
	"apply":      "almanac apply [flags] FILE...   |   almanac apply --server URL [flags]",
	"backup":     "almanac backup [--data DIR] [--with-secrets] FILE",
	"completion": "almanac completion bash|zsh|fish",
	"delete":     "almanac delete [flags] NAME",
	"describe":   "almanac describe [flags] job NAME | run ID | resource ID | apply ID",
	"get":        "almanac get [flags] jobs|runs|resources|events|applies|windows|nodes",
	"import":     "almanac import crontab [--user U] [--system] [--tz ZONE] [--prefix P] FILE|-   |   almanac import cronjob [--container-runtime podman|docker] FILE.yaml|-   |   almanac import timer [--tz ZONE] UNIT.timer [UNIT.service] | DIR",
	"inventory":  "almanac inventory [flags]",
	"kill":       "almanac kill [flags] RUN|JOB",
	"manpage":    "almanac manpage [--date YYYY-MM-DD]",
	"logs":       "almanac logs [-f] [flags] RUN|JOB",
	"next":       "almanac next [--tz ZONE] [--from RFC3339] [-n N] [--json] EXPR",
	"restore":    "almanac restore [--data DIR] [--suspended] FILE",
	"resume":     "almanac resume [flags] NAME",
	"run":        "almanac run NAME --schedule CRON | --at TIME [--tz ZONE] [flags] -- COMMAND...",
	"serve":      "almanac serve [flags]",
	"suspend":    "almanac suspend [flags] NAME",
	"token":      "almanac token create NAME --role viewer|operator|admin [--jobs PREFIX] [--expires DUR] [flags]   |   almanac token list [flags]   |   almanac token revoke NAME [flags]",
	"tags":       "almanac tags [--at RFC3339] [--hibernation-supported] [--json] KEY=VALUE...",
	"trigger":    "almanac trigger [flags] NAME",
	"validate":   "almanac validate [flags] FILE...",
	"version":    "almanac version [--json]",
	"wave":       "almanac wave status JOB [--instant RFC3339] [-o json] [flags]   |   almanac wave pause|resume|abort JOB [flags]",
	"windows":    "almanac windows [--at RFC3339] [--json] FILE...",
}

// helpError is returned by parseFlags for -h/--help. It wraps flag.ErrHelp
// and carries the command's help text, which Main prints on stdout (exit
// 0), and its flag set, from which completion and the manual are made.
type helpError struct {
	text string
	fs   *flag.FlagSet
}

func (h *helpError) Error() string { return flag.ErrHelp.Error() }
func (h *helpError) Unwrap() error { return flag.ErrHelp }

// newHelp builds the help text of the command fs belongs to: its summary,
// its synopsis and its flags with their defaults.
func newHelp(fs *flag.FlagSet) *helpError {
	var b bytes.Buffer
	writeCommandHelp(&b, fs.Name())
	var flags bytes.Buffer
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if flags.Len() > 0 {
		b.WriteString("\nFlags:\n")
		b.Write(flags.Bytes())
	}
	return &helpError{text: b.String(), fs: fs}
}

// writeCommandHelp writes the summary and synopsis of command name.
func writeCommandHelp(w io.Writer, name string) {
	if c, ok := commands[name]; ok {
		fmt.Fprintf(w, "almanac %s: %s\n", name, c.summary)
	}
	syn := synopses[name]
	if syn == "" {
		syn = "almanac " + name + " [flags] [args]"
	}
	fmt.Fprintf(w, "\nUsage: %s\n", strings.TrimSpace(syn))
}
