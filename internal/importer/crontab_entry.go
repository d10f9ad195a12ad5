package importer

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/cron"
	jobspec "github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/posixid"
)

// entry converts one schedule line; false (after a warning) when it cannot.
func (st *crontabState) entry(n int, line string) (*job, bool) {
	fields := strings.Fields(line)
	var schedule string
	var rest []string
	switch {
	case fields[0] == "@reboot":
		st.warn(n, "@reboot runs once when cron starts; almanac has no such trigger, so the entry is not imported")
		return nil, false
	case strings.HasPrefix(fields[0], "@"):
		if !macros[fields[0]] {
			st.warn(n, "unknown schedule %s; the entry is not imported", fields[0])
			return nil, false
		}
		schedule, rest = fields[0], fields[1:]
	case len(fields) < 6:
		st.warn(n, "expected five schedule fields and a command; the entry is not imported")
		return nil, false
	default:
		schedule, rest = strings.Join(fields[:5], " "), fields[5:]
	}
	user := st.opts.User
	if st.system {
		if len(rest) < 2 {
			st.warn(n, "expected a user and a command after the schedule (system crontab format); the entry is not imported")
			return nil, false
		}
		user, rest = rest[0], rest[1:]
	}
	if len(rest) == 0 {
		st.warn(n, "no command; the entry is not imported")
		return nil, false
	}
	if err := posixid.CheckName("user", user); user != "" && err != nil {
		st.warn(n, "%v, not a user almanac can run a job as; the entry is not imported", err)
		return nil, false
	}
	// The command is the rest of the line as written, spaces kept.
	command := commandText(line, len(fields)-len(rest))
	zone := st.defaultZone()
	if st.zone != "" {
		zone = st.zone
	}
	loc, err := calendar.LoadZone(zone)
	if err != nil {
		st.warn(n, "time zone %s: %v; the entry is not imported", zone, err)
		return nil, false
	}
	if _, err := cron.Parse(schedule, cron.WithLocation(loc)); err != nil {
		st.warn(n, "schedule %q: %v; the entry is not imported", schedule, err)
		return nil, false
	}
	cmd, stdin := splitPercent(command)
	if strings.TrimSpace(cmd) == "" {
		st.warn(n, "no command before the %%; the entry is not imported")
		return nil, false
	}
	j := &job{name: st.taken.make(commandName(cmd))}
	j.comments = append(j.comments, fmt.Sprintf("%s:%d: %s", st.file, n, line))
	j.set("cron", quote(schedule))
	j.set("time_zone", quote(loc.String()))
	shell := st.shell
	if shell == "" {
		shell = "/bin/sh"
	}
	script := withStdin(cmd, stdin)
	if shell == "/bin/sh" {
		j.set("command", quote(script))
	} else {
		j.set("command", quoteList([]string{shell, "-c", script}))
	}
	if ref := st.env.ref(); ref != "" {
		j.set("env", ref)
	}
	if user != "" {
		j.set("run_as", quote(user))
	}
	st.mail(n, j)
	// cron starts every run, even while the previous one is still going.
	j.set("concurrency_policy", quote("Allow"))
	return j, true
}

// mail maps MAILTO to the job's notify targets: each comma-separated
// address a mailto: target; an empty MAILTO none.
func (st *crontabState) mail(n int, j *job) {
	if st.mailto == nil {
		return // cron mails the owner; almanac notifies serve --notify-default
	}
	v := strings.TrimSpace(*st.mailto)
	if v == "" {
		j.comments = append(j.comments, "MAILTO is empty: cron sent no mail, so the job names no notify target")
		return
	}
	var targets []string
	for _, a := range strings.Split(v, ",") {
		t := "mailto:" + strings.TrimSpace(a)
		if err := jobspec.CheckNotifyTarget(t); err != nil {
			st.warn(n, "MAILTO %s: %v (a local mailbox needs a full address for almanac); not a notify target", strings.TrimSpace(a), err)
			continue
		}
		targets = append(targets, t)
	}
	switch {
	case len(targets) == 0:
		j.comments = append(j.comments, "MAILTO="+v+": no address almanac can mail")
	case len(targets) > jobspec.MaxNotify:
		st.warn(n, "MAILTO names %d addresses; almanac notifies at most %d, the first of them", len(targets), jobspec.MaxNotify)
		targets = targets[:jobspec.MaxNotify]
		fallthrough
	default:
		if len(targets) == 1 {
			j.set("notify", quote(targets[0]))
		} else {
			j.set("notify", quoteList(targets))
		}
	}
}

// withStdin returns the shell script that runs cmd with stdin as its
// standard input, as cron does: the whole shell's standard input becomes
// a here-document, read before cmd is parsed, so nothing in cmd (a
// comment, a quote) can reach into the data and nothing in the data can
// end the here-document early: its delimiter occurs nowhere in the data
// (ALMANAC_STDIN, or with a suffix hashed from the data when the data holds
// that).
func withStdin(cmd, stdin string) string {
	if stdin == "" {
		return cmd
	}
	delim := "ALMANAC_STDIN"
	if strings.Contains(stdin, delim) {
		// A suffix derived from the data: finding text that contains its
		// own hash is out of reach, so this loop ends at once, and one
		// scan of the data per try keeps a large input linear.
		h := fnv.New64a()
		h.Write([]byte(stdin))
		for strings.Contains(stdin, delim) {
			delim = fmt.Sprintf("ALMANAC_STDIN_%x", h.Sum64())
			h.Write([]byte(delim))
		}
	}
	return "exec <<'" + delim + "'\n" + strings.TrimSuffix(stdin, "\n") + "\n" + delim + "\n" + cmd
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
