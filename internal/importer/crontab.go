package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/cron"
)

// CrontabOptions say how to read a crontab.
type CrontabOptions struct {
	// System reads the system format (/etc/crontab, /etc/cron.d/*): a user
	// column between the schedule and the command.
	System bool
	// User is the crontab's owner, for comments (`crontab -l` of that user).
	User string
}

// envLineRE matches a crontab environment setting: NAME = value.
var envLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$`)

// macros are the @ schedules almanac's cron dialect shares with cron.
var macros = map[string]bool{"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true,
	"@daily": true, "@midnight": true, "@hourly": true}

// crontabState is what the lines so far have set.
type crontabState struct {
	env    map[string]string
	zone   string // CRON_TZ
	mailto string
	shell  string
}

// Crontab converts a Vixie/cronie crontab named file to a manifest of
// jobs. Environment lines apply to the entries after them, as in cron:
// CRON_TZ becomes the jobs' time zone, SHELL the program that runs the
// command (/bin/sh by default), MAILTO a comment (almanac sends no mail),
// the others the jobs' environment. A `%` in a command ends the command;
// the rest, with each further `%` read as a newline, is the command's
// standard input, as crontab(5) says (`\%` is a literal `%`). @reboot and
// lines almanac cannot read are reported and left out.
func Crontab(file string, src []byte, opts CrontabOptions) (Result, error) {
	if !utf8.Valid(src) {
		return Result{}, fmt.Errorf("%s: not UTF-8 text", file)
	}
	var b strings.Builder
	var res Result
	warn := func(line int, format string, a ...any) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s:%d: %s", file, line, fmt.Sprintf(format, a...)))
	}
	from := file
	if opts.User != "" {
		from += " (the crontab of " + opts.User + ")"
	}
	fmt.Fprintf(&b, "# Imported from %s by `almanac import crontab`.\n", from)
	st := crontabState{env: map[string]string{}}
	taken := names{}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := envLineRE.FindStringSubmatch(line); m != nil {
			st.setEnv(m[1], unquoteEnv(m[2]))
			if m[1] == "MAILTO" && st.mailto != "" {
				warn(n, "MAILTO=%s: almanac does not mail a job's output; the address is kept as a comment", st.mailto)
			}
			continue
		}
		j, ok := st.entry(file, n, line, opts, taken, warn)
		if !ok {
			fmt.Fprintf(&b, "\n# %s:%d: not imported: %s\n", file, n, line)
			continue
		}
		b.WriteString("\n")
		j.write(&b)
		res.Jobs++
	}
	if err := sc.Err(); err != nil {
		return Result{}, fmt.Errorf("%s: %w", file, err)
	}
	res.Manifest = b.String()
	return res, nil
}

// setEnv records an environment line.
func (st *crontabState) setEnv(name, value string) {
	switch name {
	case "CRON_TZ":
		st.zone = value
	case "MAILTO":
		st.mailto = value
	case "SHELL":
		st.shell = value
	default:
		st.env[name] = value
	}
}

// unquoteEnv removes the quotes cron allows around an environment value.
func unquoteEnv(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// entry converts one schedule line; false (after a warning) when it cannot.
func (st *crontabState) entry(file string, n int, line string, opts CrontabOptions, taken names, warn func(int, string, ...any)) (*job, bool) {
	fields := strings.Fields(line)
	var schedule string
	var rest []string
	switch {
	case fields[0] == "@reboot":
		warn(n, "@reboot runs once when cron starts; almanac has no such trigger, so the entry is not imported")
		return nil, false
	case strings.HasPrefix(fields[0], "@"):
		if !macros[fields[0]] {
			warn(n, "unknown schedule %s; the entry is not imported", fields[0])
			return nil, false
		}
		schedule, rest = fields[0], fields[1:]
	case len(fields) < 6:
		warn(n, "expected five schedule fields and a command; the entry is not imported")
		return nil, false
	default:
		schedule, rest = strings.Join(fields[:5], " "), fields[5:]
	}
	user := ""
	if opts.System {
		if len(rest) < 2 {
			warn(n, "expected a user and a command after the schedule (system crontab format); the entry is not imported")
			return nil, false
		}
		user, rest = rest[0], rest[1:]
	}
	if len(rest) == 0 {
		warn(n, "no command; the entry is not imported")
		return nil, false
	}
	// The command is the rest of the line as written, spaces kept.
	command := commandText(line, len(fields)-len(rest))
	loc := time.UTC
	if st.zone != "" {
		l, err := calendar.LoadZone(st.zone)
		if err != nil {
			warn(n, "CRON_TZ=%s: %v; the entry is not imported", st.zone, err)
			return nil, false
		}
		loc = l
	}
	if _, err := cron.Parse(schedule, cron.WithLocation(loc)); err != nil {
		warn(n, "schedule %q: %v; the entry is not imported", schedule, err)
		return nil, false
	}
	cmd, stdin := splitPercent(command)
	j := &job{name: taken.make(jobBase(cmd) + "-" + itoa(int64(n)))}
	j.comments = append(j.comments, fmt.Sprintf("%s:%d: %s", file, n, line))
	if user != "" {
		j.comments = append(j.comments, "cron ran this as user "+user+"; almanac runs it as the daemon's user")
		if user != "root" {
			warn(n, "runs as user %s in cron; almanac runs jobs as the daemon's user", user)
		}
	}
	if st.mailto != "" {
		j.comments = append(j.comments, "MAILTO="+st.mailto+": almanac does not mail output; see `almanac logs "+j.name+"`")
	}
	j.set("cron", quote(schedule))
	if st.zone != "" {
		j.set("time_zone", quote(loc.String()))
	}
	shell := st.shell
	if shell == "" {
		shell = "/bin/sh"
	}
	if stdin != "" {
		// cron feeds the text after the first % to the command's standard
		// input, each further % a newline; a here-document does the same.
		cmd = cmd + " <<'ALMANAC_STDIN'\n" + strings.TrimSuffix(stdin, "\n") + "\nALMANAC_STDIN"
	}
	if shell == "/bin/sh" {
		j.set("command", quote(cmd))
	} else {
		j.set("command", quoteList([]string{shell, "-c", cmd}))
	}
	if len(st.env) > 0 {
		j.set("env", quoteHash(st.env))
	}
	// cron starts every run, even while the previous one is still going.
	j.set("concurrency_policy", quote("Allow"))
	return j, true
}

// commandText returns line from its skip-th field on, as written.
func commandText(line string, skip int) string {
	rest := line
	for range skip {
		rest = strings.TrimLeft(rest, " \t")
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			return ""
		}
		rest = rest[i:]
	}
	return strings.TrimSpace(rest)
}

// splitPercent applies crontab(5)'s rule for %: the first unescaped % ends
// the command and starts its standard input, in which every other
// unescaped % is a newline; \% is a literal %.
func splitPercent(s string) (cmd, stdin string) {
	var out strings.Builder
	inStdin := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '%':
			out.WriteByte('%')
			i++
		case s[i] == '%' && !inStdin:
			cmd, inStdin = out.String(), true
			out.Reset()
		case s[i] == '%':
			out.WriteByte('\n')
		default:
			out.WriteByte(s[i])
		}
	}
	if !inStdin {
		return out.String(), ""
	}
	return strings.TrimSpace(cmd), out.String()
}

// jobBase is a name stem for a command: its program's base name.
func jobBase(cmd string) string {
	f := strings.Fields(cmd)
	for len(f) > 0 && strings.Contains(f[0], "=") { // VAR=value cmd
		f = f[1:]
	}
	if len(f) == 0 {
		return "cron"
	}
	return path.Base(f[0])
}
