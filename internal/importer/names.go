package importer

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// nameCleaner replaces what a job name may not contain.
var nameCleaner = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// names hands out job names that are valid and unique within one import.
type names struct {
	prefix string // PREFIX- in front of every name
	taken  map[string]bool
	next   map[string]int // the suffix to try next for a base
}

// make returns a job name built from the prefix and base (cleaned, at most
// 128 bytes, starting with a letter or digit), with -2, -3 … appended when
// taken.
func (n *names) make(base string) string {
	if n.taken == nil {
		n.taken, n.next = map[string]bool{}, map[string]int{}
	}
	if n.prefix != "" {
		base = n.prefix + "-" + base
	}
	s := strings.Trim(nameCleaner.ReplaceAllString(base, "-"), "-._")
	if s == "" {
		s = "job"
	}
	if len(s) > 120 {
		s = strings.TrimRight(s[:120], "-._")
	}
	name := s
	i := max(2, n.next[s])
	for ; n.taken[name]; i++ {
		name = s + "-" + strconv.Itoa(i)
	}
	n.next[s] = i
	n.taken[name] = true
	return name
}

// nameless are programs that prepare rather than do the work: a name is
// taken from the command after them.
var nameless = map[string]bool{"cd": true, "test": true, "[": true, "[[": true, "]": true, "]]": true,
	"true": true, "false": true, ":": true, "export": true, "set": true, "umask": true, "sleep": true,
	"fi": true, "done": true, "esac": true, "source": true, ".": true, "mkdir": true, "echo": true,
	"printf": true, "rm": true, "exit": true, "return": true, "wait": true}

// keywords start a simple command without being its program; the ones
// that start a condition (if, while) mark a command that only decides
// whether the work is done, so a name comes from the command after it.
var keywords = map[string]bool{"then": true, "else": true, "do": true, "!": true, "{": true,
	"if": true, "elif": true, "while": true, "until": true}

// conditions are the keywords whose command is a condition.
var conditions = map[string]bool{"if": true, "elif": true, "while": true, "until": true}

// wrapper describes a program that runs the command named after its
// options and operands: nice, flock, timeout, sudo …
type wrapper struct {
	argOpts  string          // short options that take a value (-n 19)
	longArgs map[string]bool // long options that take a value (--user U)
	operands int             // operands before the command (timeout's DURATION)
	cmdOpt   string          // a short option whose value is a shell command (flock -c)
}

// wrappers run the program named after them: the name is the program's.
var wrappers = map[string]wrapper{
	"nice":        {argOpts: "n", longArgs: map[string]bool{"--adjustment": true}},
	"ionice":      {argOpts: "cnpPu", longArgs: map[string]bool{"--class": true, "--classdata": true}},
	"nohup":       {},
	"chronic":     {},
	"cronic":      {},
	"exec":        {argOpts: "a"},
	"time":        {argOpts: "fo"},
	"command":     {},
	"run-one":     {},
	"systemd-cat": {argOpts: "tp", longArgs: map[string]bool{"--identifier": true, "--priority": true}},
	"sudo":        {argOpts: "ugCDhprTU", longArgs: map[string]bool{"--user": true, "--group": true}},
	"env":         {argOpts: "uCS", longArgs: map[string]bool{"--unset": true, "--chdir": true}},
	"timeout":     {argOpts: "sk", longArgs: map[string]bool{"--signal": true, "--kill-after": true}, operands: 1},
	"flock":       {argOpts: "wEc", longArgs: map[string]bool{"--wait": true, "--timeout": true, "--conflict-exit-code": true}, operands: 1, cmdOpt: "c"},
	"setlock":     {operands: 1},
	"setuidgid":   {operands: 1},
	"stdbuf":      {argOpts: "ioe"},
	"xargs":       {argOpts: "adEIiLlnPs"},
	"caffeinate":  {},
	"unbuffer":    {},
	"ifne":        {},
	"lckdo":       {argOpts: "w", operands: 1},
	"runuser":     {argOpts: "ugc", cmdOpt: "c"},
	"su":          {argOpts: "cgs", cmdOpt: "c"},
}

// shells run the script given with -c, which a name is taken from.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true}

// launchers run a script: the name adds the script's.
var launchers = map[string]bool{"sh": true, "bash": true, "dash": true, "php": true, "python": true, "python3": true,
	"perl": true, "ruby": true, "node": true, "run-parts": true, "java": true, "docker": true, "podman": true,
	"php-cli": true, "Rscript": true, "lua": true}

// maxNameDepth bounds how often a name is looked for inside a command
// given to a wrapper or shell (sh -c 'flock x -c "…"').
const maxNameDepth = 4

// commandName derives a readable job name from a shell command: the
// program that does the work (past cd, test, conditions, wrappers such as
// nice, flock and timeout with their options, sh -c and VAR=value
// settings), with the script or directory a launcher runs.
func commandName(cmd string) string {
	if name := nameIn(cmd, 0); name != "" {
		return name
	}
	return "cron"
}

// nameIn is commandName's work, depth levels inside a command string;
// "" when cmd names nothing.
func nameIn(cmd string, depth int) string {
	first, fallback := "", ""
	for _, words := range simpleCommands(cmd) {
		cond := false
		for len(words) > 0 && keywords[words[0]] {
			cond = cond || conditions[words[0]]
			words = words[1:]
		}
		prog, args, inner := program(words)
		if inner != "" && depth < maxNameDepth {
			if name := nameIn(inner, depth+1); name != "" && !nameless[name] {
				return name
			}
			continue
		}
		if prog == "" {
			continue
		}
		if first == "" {
			first = prog
		}
		if nameless[prog] {
			continue
		}
		name := prog
		if launchers[prog] {
			name = withScript(prog, args)
		}
		if inlineCode(prog, args) {
			// perl -e 'sleep int(rand(43200))' before the real work.
			cond = true
		}
		if cond {
			// `if pgrep x; then work; fi`: the work names the job.
			if fallback == "" {
				fallback = name
			}
			continue
		}
		return name
	}
	if fallback != "" {
		return fallback
	}
	return first
}

// inlineOpts are the options that give an interpreter its program text
// on the command line rather than in a script file.
var inlineOpts = map[string]string{"perl": "-e", "python": "-c", "python3": "-c", "ruby": "-e", "node": "-e", "php": "-r"}

// inlineCode reports whether an interpreter runs code given inline.
func inlineCode(prog string, args []string) bool {
	opt, ok := inlineOpts[prog]
	return ok && slices.Contains(args, opt)
}

// withScript adds the script or directory a launcher runs to its name.
func withScript(prog string, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (prog == "php" || prog == "php-cli") && (a == "-c" || a == "-d") || prog == "java" && (a == "-cp" || a == "-classpath") {
			i++ // an option's value, not the script
			continue
		}
		if a != "" && !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			if b := path.Base(a); b != "/" && b != "." {
				return prog + "-" + b
			}
		}
	}
	return prog
}

// program skips settings and wrappers at the start of words and returns
// the program's base name and its arguments; or, for a wrapper or shell
// given a command string (flock F -c CMD, sh -c CMD), that string.
func program(words []string) (prog string, args []string, inner string) {
	for len(words) > 0 {
		w := words[0]
		if i := strings.IndexByte(w, '='); i > 0 && !strings.HasPrefix(w, "-") {
			words = words[1:] // VAR=value
			continue
		}
		base := path.Base(w)
		if shells[base] {
			for i := 1; i+1 < len(words); i++ {
				if words[i] == "-c" || strings.HasPrefix(words[i], "-") && !strings.HasPrefix(words[i], "--") && strings.HasSuffix(words[i], "c") {
					return base, words[1:], words[i+1]
				}
				if !strings.HasPrefix(words[i], "-") {
					break
				}
			}
			return base, words[1:], ""
		}
		wr, ok := wrappers[base]
		if !ok {
			return base, words[1:], ""
		}
		words = words[1:]
		for len(words) > 0 && strings.HasPrefix(words[0], "-") && words[0] != "-" {
			opt := words[0]
			words = words[1:]
			if opt == "--" {
				break
			}
			if strings.HasPrefix(opt, "--") {
				if wr.longArgs[opt] && len(words) > 0 {
					words = words[1:]
				}
				if opt == "--command" && base == "flock" && len(words) > 0 {
					return base, nil, words[0]
				}
				continue
			}
			// A cluster of short options (-xn): the first one that takes
			// a value takes the rest of the cluster, or the next word.
			for k := 1; k < len(opt); k++ {
				if !strings.ContainsRune(wr.argOpts, rune(opt[k])) {
					continue
				}
				value := opt[k+1:]
				if value == "" && len(words) > 0 {
					value, words = words[0], words[1:]
				}
				if wr.cmdOpt != "" && string(opt[k]) == wr.cmdOpt {
					return base, nil, value
				}
				break
			}
		}
		for n := wr.operands; n > 0 && len(words) > 0; n-- {
			words = words[1:]
		}
		// flock FILE -c CMD: the command option may follow the operand.
		if wr.cmdOpt != "" && len(words) >= 2 && words[0] == "-"+wr.cmdOpt {
			return base, nil, words[1]
		}
	}
	return "", nil, ""
}

// simpleCommands splits a shell command into the words of its simple
// commands: at ; & | && || ( ) and newlines outside quotes, with quotes
// removed from the words and $( … ), ` … ` kept inside the word they are
// in. It reads enough of sh(1) to find program names, not to run them.
func simpleCommands(cmd string) [][]string {
	var out [][]string
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			out = append(out, words)
			words = nil
		}
	}
	depth := 0         // parentheses open inside $( … )
	backquote := false // inside ` … `
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case backquote:
			word.WriteByte(c)
			backquote = c != '`'
		case depth > 0:
			word.WriteByte(c)
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
		case c == '\\' && i+1 < len(cmd):
			word.WriteByte(cmd[i+1])
			inWord = true
			i++
		case c == '\'', c == '"':
			end := strings.IndexByte(cmd[i+1:], c)
			if end < 0 {
				end = len(cmd) - i - 1
			}
			word.WriteString(cmd[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case c == '$' && i+1 < len(cmd) && cmd[i+1] == '(':
			word.WriteString("$(")
			inWord = true
			depth = 1
			i++
		case c == '`':
			word.WriteByte(c)
			inWord = true
			backquote = true
		case c == ' ' || c == '\t':
			endWord()
		case c == '>' || c == '<':
			// A redirection: its target is not a word of the command.
			endWord()
			for i+1 < len(cmd) && (cmd[i+1] == '>' || cmd[i+1] == '&' || cmd[i+1] == ' ') {
				i++
			}
			for i+1 < len(cmd) && !strings.ContainsRune(" \t;&|()\n", rune(cmd[i+1])) {
				i++
			}
		case strings.IndexByte(";&|(){}\n", c) >= 0:
			endCommand()
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCommand()
	return out
}
