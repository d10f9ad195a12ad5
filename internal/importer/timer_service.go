package importer

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	jobspec "github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/posixid"
)

// serviceSpec is what a service unit gives its job.
type serviceSpec struct {
	argv     []string // one command run directly
	script   string   // several ExecStart= lines, or a `-` prefix: a /bin/sh script
	env      map[string]string
	user     string
	cwd      string
	timeout  int64
	comments []string
}

// execLine is one ExecStart= with its prefixes taken off.
type execLine struct {
	words        []string
	argv0        string // the argv[0] an @ prefix names, dropped
	ignoreFail   bool   // -
	noSubstitute bool   // :
	line         int
}

// serviceKeysIgnored are [Service] settings whose absence of an almanac
// equivalent changes nothing a job does.
var serviceKeysIgnored = map[string]bool{"Type": true, "RemainAfterExit": true, "StandardOutput": true,
	"StandardError": true, "SyslogIdentifier": true}

// readService maps the [Service] section; false (after a warning) when the
// service cannot be a job.
func readService(u *unitFile, unitName string, warn func(int, string, ...any)) (*serviceSpec, bool) {
	s := &serviceSpec{env: map[string]string{}}
	var execs, pre, post []execLine
	var group string
	kind := "simple"
	var startTimeout, runtimeMax *int64
	var ignored []string
	var ignoredLine int
	for _, e := range u.entries {
		if e.section == "Unit" {
			v := specifiersOrAsIs(e.value, unitName)
			switch {
			case e.key == "Description":
				s.comments = append(s.comments, "service: "+v)
			case strings.HasPrefix(e.key, "Condition") || strings.HasPrefix(e.key, "Assert"):
				warn(e.line, "%s=%s: systemd skips the run when it does not hold; almanac always runs the job", e.key, v)
				s.comments = append(s.comments, "not imported: "+e.key+"="+v)
			}
			continue
		}
		if e.section != "Service" {
			continue
		}
		spanSeconds := func() *int64 {
			d, finite, err := parseTimespan(e.value)
			if err != nil {
				warn(e.line, "%s=%s: %v; ignored", e.key, e.value, err)
				return nil
			}
			if !finite || d == 0 {
				var none int64
				return &none
			}
			n := wholeSeconds(d)
			if n > jobspec.MaxDurationSeconds {
				warn(e.line, "%s=%s is over a job's limit of %d seconds; read as no limit", e.key, e.value, jobspec.MaxDurationSeconds)
				n = 0
			}
			return &n
		}
		lists := map[string]*[]execLine{"ExecStart": &execs, "ExecStartPre": &pre, "ExecStartPost": &post}
		if list, ok := lists[e.key]; ok {
			if e.value == "" {
				*list = nil // an empty assignment resets the list
				continue
			}
			x, err := parseExec(e.value, unitName)
			if x.argv0 != "" {
				warn(e.line, "%s=: the @ prefix names argv[0] %q; almanac runs the program with its path as argv[0]", e.key, x.argv0)
			}
			if err != nil {
				warn(e.line, "%s=%s: %v; not imported", e.key, e.value, err)
				return nil, false
			}
			x.line = e.line
			if len(x.words) == 0 {
				warn(e.line, "%s= names no program; not imported", e.key)
				return nil, false
			}
			*list = append(*list, x)
			continue
		}
		switch e.key {
		case "Type":
			kind = e.value
			if kind != "oneshot" && kind != "simple" && kind != "exec" {
				warn(e.line, "Type=%s: almanac runs the command until it exits, as for Type=oneshot", kind)
			}
		case "User":
			s.user = e.value
		case "Group":
			group = e.value
		case "Environment":
			if e.value == "" {
				s.env = map[string]string{}
				continue
			}
			if err := addEnvironment(s.env, e.value, unitName); err != nil {
				warn(e.line, "Environment=%s: %v; ignored", e.value, err)
			}
		case "EnvironmentFile":
			warn(e.line, "EnvironmentFile=%s is not read: copy the values the job needs into env", e.value)
			s.comments = append(s.comments, "not imported: EnvironmentFile="+e.value)
		case "WorkingDirectory":
			dir := strings.TrimPrefix(e.value, "-")
			if !path.IsAbs(dir) {
				warn(e.line, "WorkingDirectory=%s: only an absolute path maps to cwd; ignored", e.value)
				continue
			}
			s.cwd = dir
		case "TimeoutStartSec":
			startTimeout = spanSeconds()
		case "TimeoutSec":
			if startTimeout == nil {
				startTimeout = spanSeconds()
			}
		case "RuntimeMaxSec":
			runtimeMax = spanSeconds()
		default:
			if !serviceKeysIgnored[e.key] {
				if len(ignored) == 0 {
					ignoredLine = e.line
				}
				ignored = append(ignored, e.key+"=")
				s.comments = append(s.comments, "not imported: "+e.key+"="+e.value)
			}
		}
	}
	if len(ignored) > 0 {
		warn(ignoredLine, "%s: no almanac equivalent (sandboxing, scheduling priority and the like); ignored", strings.Join(ignored, ", "))
	}
	if len(execs) == 0 {
		warn(1, "no ExecStart=; not imported")
		return nil, false
	}
	if len(execs) > 1 && kind != "oneshot" {
		warn(execs[1].line, "several ExecStart= lines, which only Type=oneshot allows; not imported")
		return nil, false
	}
	if s.user != "" {
		ru := s.user
		if group != "" {
			ru += ":" + group
		}
		if err := posixid.CheckRunAs(ru); err != nil {
			warn(1, "User=%s Group=%s: %v, not a user almanac can run a job as; not imported", s.user, group, err)
			return nil, false
		}
		s.user = ru
	} else if group != "" {
		warn(1, "Group=%s without User=: almanac runs the job as the daemon's user", group)
	}
	// A oneshot service's start lasts until its command exits: the start
	// timeout bounds the run. Other services' bound is RuntimeMaxSec=.
	if kind == "oneshot" {
		if startTimeout != nil {
			s.timeout = *startTimeout
		}
	} else if runtimeMax != nil {
		s.timeout = *runtimeMax
	}
	// ExecStartPre= and ExecStartPost= run before and after, in order; a
	// failure (without -) stops the sequence, as systemd stops the start.
	s.commands(append(append(pre, execs...), post...), warn)
	return s, true
}

// commands sets the argv or script from the ExecStart= lines, expanding
// $VAR and ${VAR} from Environment= as systemd does at start.
func (s *serviceSpec) commands(execs []execLine, warn func(int, string, ...any)) {
	argvs := make([][]string, len(execs))
	for i, x := range execs {
		argv := x.words
		if !x.noSubstitute {
			var missing []string
			argv, missing = substituteEnv(argv, s.env)
			for _, m := range missing {
				warn(x.line, "ExecStart= uses $%s, which no Environment= sets (systemd may take it from EnvironmentFile= or the manager's environment); expanded to nothing", m)
			}
		}
		argvs[i] = argv
	}
	if len(execs) == 1 && !execs[0].ignoreFail && len(argvs[0]) > 0 {
		s.argv = argvs[0]
		return
	}
	parts := make([]string, 0, len(execs))
	for i, argv := range argvs {
		q := make([]string, len(argv))
		for k, a := range argv {
			q[k] = shellQuote(a)
		}
		cmd := strings.Join(q, " ")
		if execs[i].ignoreFail {
			cmd = "{ " + cmd + " || :; }"
		}
		parts = append(parts, cmd)
	}
	s.script = strings.Join(parts, " &&\n")
}

// apply sets the job's command and what goes with it.
func (s *serviceSpec) apply(j *job) {
	if s.argv != nil {
		j.set("command", quoteList(s.argv))
	} else {
		j.set("command", quote(s.script))
	}
	if len(s.env) > 0 {
		j.set("env", quoteHash(s.env))
	}
	if s.cwd != "" {
		j.set("cwd", quote(s.cwd))
	}
	if s.user != "" {
		j.set("run_as", quote(s.user))
	}
	if s.timeout > 0 {
		j.set("timeout", itoa(s.timeout))
	}
}

// plainWordRE matches a word /bin/sh reads as itself.
var plainWordRE = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote is s as one /bin/sh word, quoted only when it has to be.
func shellQuote(s string) string {
	if plainWordRE.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseExec reads an ExecStart= value: its prefixes, then its words with
// specifiers expanded.
func parseExec(v, unitName string) (execLine, error) {
	var x execLine
	argv0 := false
	for len(v) > 0 && strings.ContainsRune("-@:+!|", rune(v[0])) {
		switch v[0] {
		case '-':
			x.ignoreFail = true
		case '@':
			argv0 = true
		case ':':
			x.noSubstitute = true
		case '+', '!':
			// Full or ambient privileges: the job still runs as User=,
			// which is no more than the unit asked for.
		case '|':
			return x, fmt.Errorf("the | prefix (run through the user's shell) is not supported")
		}
		v = v[1:]
	}
	words, err := unitWords(v)
	if err != nil {
		return x, err
	}
	for i, w := range words {
		if words[i], err = expandSpecifiers(w, unitName); err != nil {
			return x, err
		}
	}
	if argv0 && len(words) >= 2 {
		// @/path name args: name is argv[0]; almanac runs the path with
		// the path as argv[0].
		x.argv0 = words[1]
		words = append(words[:1], words[2:]...)
	}
	x.words = words
	return x, nil
}

// addEnvironment adds an Environment= line's NAME=value words to env.
func addEnvironment(env map[string]string, v, unitName string) error {
	words, err := unitWords(v)
	if err != nil {
		return err
	}
	for _, w := range words {
		w, err := expandSpecifiers(w, unitName)
		if err != nil {
			return err
		}
		name, value, ok := strings.Cut(w, "=")
		if !ok || !envLineRE.MatchString(name+"=") {
			return fmt.Errorf("%q is not NAME=value", w)
		}
		env[name] = value
	}
	return nil
}

// systemSpecifiers are the specifiers whose value on a system manager does
// not depend on the host.
var systemSpecifiers = map[byte]string{'t': "/run", 'S': "/var/lib", 'C': "/var/cache", 'L': "/var/log",
	'E': "/etc", 'T': "/tmp", 'V': "/var/tmp", '%': "%"}

// expandSpecifiers resolves %n, %N, %p, %P, %i, %I, %j, %J (from the
// unit's name; the capital ones unescaped), the system directories and %%; the others depend on the host
// (%H, %m, %b …) or the user (%h, %u …) and are an error.
func expandSpecifiers(s, unitName string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	full := unitName
	base := strings.TrimSuffix(full, path.Ext(full))
	prefix, instance, _ := strings.Cut(base, "@")
	final := prefix
	if i := strings.LastIndexByte(prefix, '-'); i >= 0 {
		final = prefix[i+1:]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("a lone %% at the end of %q", s)
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteString(full)
		case 'N':
			b.WriteString(base)
		case 'p':
			b.WriteString(prefix)
		case 'P':
			b.WriteString(unescapeUnitName(prefix))
		case 'i':
			b.WriteString(instance)
		case 'I':
			b.WriteString(unescapeUnitName(instance))
		case 'j':
			b.WriteString(final)
		case 'J':
			b.WriteString(unescapeUnitName(final))
		default:
			v, ok := systemSpecifiers[c]
			if !ok {
				return "", fmt.Errorf("the specifier %%%c depends on the host or the user; write its value instead", c)
			}
			b.WriteString(v)
		}
	}
	return b.String(), nil
}

// specifiersOrAsIs is v with its specifiers expanded for the unit, or v
// as written when one cannot be: for comments, which are read, not run.
func specifiersOrAsIs(v, unitName string) string {
	if x, err := expandSpecifiers(v, unitName); err == nil {
		return x
	}
	return v
}

// unescapeUnitName undoes systemd-escape(1) on part of a unit name: a
// "-" is a "/", and \xNN is the byte NN (pg_dump@15-main: %I is 15/main).
func unescapeUnitName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '-':
			b.WriteByte('/')
		case s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x':
			if n, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil && n != 0 && n < 0x80 {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
			b.WriteByte(s[i])
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// substituteEnv expands environment references in argv as systemd does:
// a word that is exactly $NAME becomes the value split at whitespace (no
// word when empty), ${NAME} anywhere is replaced by the value as is, and
// $$ is a $. Names env lacks expand to nothing and are returned.
func substituteEnv(argv []string, env map[string]string) ([]string, []string) {
	var out, missing []string
	lookup := func(name string) string {
		v, ok := env[name]
		if !ok {
			missing = append(missing, name)
		}
		return v
	}
	for _, w := range argv {
		if name, ok := strings.CutPrefix(w, "$"); ok && name != "" && envLineRE.MatchString(name+"=") && !strings.HasPrefix(name, "{") {
			out = append(out, strings.Fields(lookup(name))...)
			continue
		}
		var b strings.Builder
		for i := 0; i < len(w); i++ {
			switch {
			case strings.HasPrefix(w[i:], "$$"):
				b.WriteByte('$')
				i++
			case strings.HasPrefix(w[i:], "${"):
				end := strings.IndexByte(w[i:], '}')
				if end < 0 {
					b.WriteString(w[i:])
					i = len(w)
					continue
				}
				b.WriteString(lookup(w[i+2 : i+end]))
				i += end
			default:
				b.WriteByte(w[i])
			}
		}
		out = append(out, b.String())
	}
	return out, missing
}
