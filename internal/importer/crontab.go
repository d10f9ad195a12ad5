package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/almanac-sh/almanac/internal/posixid"
)

// Crontab formats: a user crontab, the system format with a user column,
// or decided by the file (SystemAuto).
const (
	SystemAuto = iota
	SystemNo
	SystemYes
)

// CrontabOptions say how to read a crontab.
type CrontabOptions struct {
	// System is SystemYes for the system format (/etc/crontab,
	// /etc/cron.d/*: a user column between the schedule and the command),
	// SystemNo for a user crontab, and SystemAuto (the zero value) to
	// read a user crontab but refuse a file that looks like the system
	// format.
	System int
	// User is the crontab's owner (`crontab -l -u USER`): the jobs'
	// run_as. Not used with the system format, whose lines name theirs.
	User string
	// Zone is the zone cron reads schedules in where no CRON_TZ says
	// otherwise: the host's zone. Empty means UTC.
	Zone string
	// IgnoreCronTZ follows Debian's cron, which does not read CRON_TZ
	// (it only passes it to the commands' environment), instead of
	// cronie, which reads the entries after it in that zone.
	IgnoreCronTZ bool
	// Prefix starts every job name (PREFIX-name).
	Prefix string
	// IsUser reports whether a name is an account of this host: a
	// file not said to be in either format whose command would start
	// with one is refused as ambiguous (nil: only root is recognised).
	IsUser func(name string) bool
	// MaxOutput bounds the manifest and the environment it gives its jobs,
	// counted as if each job's were written out; 0 means DefaultMaxOutput.
	MaxOutput int
}

// DefaultMaxOutput is the output bound unless an option says otherwise:
// the size of the largest manifest file almanac reads.
const DefaultMaxOutput = 16 << 20

// cronDefaultPath is the PATH cron gives commands when the crontab sets
// none.
const cronDefaultPath = "/usr/bin:/bin"

// envLineRE matches a crontab environment setting: NAME = value.
var envLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$`)

// macros are the @ schedules almanac's cron dialect shares with cron.
var macros = map[string]bool{"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true,
	"@daily": true, "@midnight": true, "@hourly": true}

// crontabState is what the lines so far have set.
type crontabState struct {
	file   string
	opts   CrontabOptions
	system bool
	env    *envChain
	zone   string // CRON_TZ, when honoured
	mailto *string
	shell  string
	taken  names
	res    *Result
	out    *strings.Builder
	size   int // bytes written plus each job's environment counted in full
	limit  int
}

// Crontab converts a Vixie/cronie crontab named file to a manifest of
// jobs. Environment lines apply to the entries after them, as in cron:
// CRON_TZ becomes the jobs' time zone (unless IgnoreCronTZ), SHELL the
// program that runs the command (/bin/sh by default), MAILTO the jobs'
// notify targets, the others the jobs' environment, shared through one
// manifest variable per change. A `%` in a command ends the command; the
// rest, with each further `%` read as a newline, is the command's standard
// input, as crontab(5) says (`\%` is a literal `%`). @reboot and lines
// almanac cannot read are reported and left out. The error is for input
// that cannot be read at all: not UTF-8, a NUL byte, a user crontab that
// looks like the system format, or output over the bound.
func Crontab(file string, src []byte, opts CrontabOptions) (Result, error) {
	if !utf8.Valid(src) {
		return Result{}, fmt.Errorf("%s: not UTF-8 text", file)
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		line := bytes.Count(src[:i], []byte("\n")) + 1
		col := i - bytes.LastIndexByte(src[:i], '\n')
		return Result{}, fmt.Errorf("%s:%d:%d: a NUL byte; a crontab is text", file, line, col)
	}
	if opts.User != "" {
		if err := posixid.CheckName("user", opts.User); err != nil {
			return Result{}, fmt.Errorf("the crontab's owner: %w", err)
		}
	}
	system, err := crontabFormat(file, src, opts.System, opts.IsUser)
	if err != nil {
		return Result{}, err
	}
	var b strings.Builder
	var res Result
	st := &crontabState{file: file, opts: opts, system: system, taken: names{prefix: opts.Prefix},
		env: newEnvChain(varStem(opts.Prefix, file)), res: &res, out: &b, limit: opts.MaxOutput}
	if st.limit <= 0 {
		st.limit = DefaultMaxOutput
	}
	// cron's commands start with PATH=/usr/bin:/bin (_PATH_DEFPATH), not
	// the PATH of whatever started cron; a PATH= line replaces it.
	st.env.set("PATH", cronDefaultPath)
	from := file
	if system {
		from += " (system crontab: a user column)"
	} else if opts.User != "" {
		from += " (the crontab of " + opts.User + ")"
	}
	zone := st.defaultZone()
	fmt.Fprintf(&b, "# Imported from %s by `almanac import crontab`.\n", from)
	fmt.Fprintf(&b, "# Schedules without CRON_TZ are read in %s, the zone cron reads them in.\n", zone)
	res.Notes = append(res.Notes, fmt.Sprintf("%s: schedules without CRON_TZ are read in %s (the host's zone unless --tz says otherwise)", file, zone))
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := envLineRE.FindStringSubmatch(line); m != nil {
			st.setEnv(n, m[1], unquoteEnv(m[2]))
			continue
		}
		j, ok := st.entry(n, line)
		if !ok {
			st.write(fmt.Sprintf("\n# %s:%d: not imported: %s\n", file, n, line), 0)
		} else {
			var jb strings.Builder
			jb.WriteString(st.env.declare())
			jb.WriteString("\n")
			j.write(&jb)
			st.write(jb.String(), st.env.size)
			res.Jobs++
		}
		if st.size > st.limit {
			return Result{}, fmt.Errorf("%s:%d: the import would exceed %d bytes (each job's environment counted in full); split the crontab or share less environment", file, n, st.limit)
		}
	}
	if err := sc.Err(); err != nil {
		return Result{}, fmt.Errorf("%s: %w", file, err)
	}
	res.Manifest = b.String()
	return res, nil
}

// write appends s to the output, counting extra bytes of shared
// environment the job it holds carries.
func (st *crontabState) write(s string, extra int) {
	st.out.WriteString(s)
	st.size += len(s) + extra
}

func (st *crontabState) warn(line int, format string, a ...any) {
	st.res.warner(st.file)(line, format, a...)
}

// defaultZone is the zone of entries no honoured CRON_TZ precedes.
func (st *crontabState) defaultZone() string {
	if st.opts.Zone == "" {
		return "UTC"
	}
	return st.opts.Zone
}

// crontabFormat decides whether file is in the system format: as told,
// or refused when a file not said to be either has a user column.
func crontabFormat(file string, src []byte, mode int, isUser func(string) bool) (bool, error) {
	switch mode {
	case SystemYes:
		return true, nil
	case SystemNo:
		return false, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if hint := systemHint(line, isUser); hint != "" {
			return false, fmt.Errorf("%s:%d: %s, as in the system format of /etc/crontab and /etc/cron.d; pass --system to read the user column, or --system=false to read it as a user crontab", file, n, hint)
		}
	}
	return false, nil
}

// systemHint says why line looks like a system crontab's: Debian's header
// comment naming the user column, or root or another account of the host
// (isUser) where the command would start.
func systemHint(line string, isUser func(string) bool) string {
	if strings.HasPrefix(line, "#") {
		f := strings.Fields(strings.TrimPrefix(line, "#"))
		if len(f) >= 7 && f[0] == "m" && f[5] == "user" {
			return "the header comment names a user column"
		}
		return ""
	}
	f := strings.Fields(line)
	i := 5
	if len(f) > 0 && strings.HasPrefix(f[0], "@") {
		i = 1
	}
	if len(f) <= i+1 {
		return ""
	}
	if f[i] == "root" {
		return "the command starts with the user name root"
	}
	if isUser != nil && posixid.CheckName("user", f[i]) == nil && isUser(f[i]) {
		return fmt.Sprintf("the command starts with %s, the name of an account on this host", f[i])
	}
	return ""
}

// setEnv records an environment line.
func (st *crontabState) setEnv(n int, name, value string) {
	switch name {
	case "CRON_TZ":
		if st.opts.IgnoreCronTZ {
			st.warn(n, "CRON_TZ=%s: ignored as Debian's cron does (--ignore-cron-tz): schedules stay in %s and the commands get CRON_TZ in their environment", value, st.defaultZone())
			st.env.set(name, value)
			return
		}
		st.zone = value
		st.warn(n, "CRON_TZ=%s: the entries after it are read in %s, as cronie does; Debian's cron ignores CRON_TZ (pass --ignore-cron-tz to follow it)", value, value)
	case "MAILTO":
		v := value
		st.mailto = &v
		// cron passes MAILTO to the command too, like every crontab
		// variable; scripts read it to mail on their own.
		st.env.set(name, value)
	case "SHELL":
		st.shell = value
	default:
		st.env.set(name, value)
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
