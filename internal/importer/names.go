package importer

import (
	"path"
	"regexp"
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

// commandSeparators split a shell command into the simple commands a name
// is looked for in.
var commandSeparators = regexp.MustCompile(`&&|\|\||[;|&{}()\n]`)

// nameless are programs that prepare rather than do the work: a name is
// taken from the command after them.
var nameless = map[string]bool{"cd": true, "test": true, "[": true, "[[": true, "]": true, "]]": true,
	"true": true, "false": true, ":": true, "export": true, "set": true, "umask": true, "sleep": true,
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"while": true, "for": true, "!": true, "source": true, ".": true, "mkdir": true, "echo": true}

// wrappers run the program named after them (and their options): the name
// is the program's. The value counts the operands they take first.
var wrappers = map[string]int{"nice": 0, "ionice": 0, "nohup": 0, "chronic": 0, "cronic": 0, "env": 0,
	"exec": 0, "time": 0, "command": 0, "run-one": 0, "systemd-cat": 0, "sudo": 0, "timeout": 1,
	"flock": 1, "setlock": 1, "setuidgid": 1}

// launchers run a script: the name adds the script's.
var launchers = map[string]bool{"sh": true, "bash": true, "php": true, "python": true, "python3": true,
	"perl": true, "ruby": true, "node": true, "run-parts": true, "java": true, "docker": true, "podman": true}

// commandName derives a readable job name from a shell command: the
// program that does the work (past cd, test, wrappers such as nice and
// VAR=value settings), with the script or directory a launcher runs.
func commandName(cmd string) string {
	first := ""
	for _, seg := range commandSeparators.Split(cmd, 64) {
		words := strings.Fields(seg)
		for i := range words {
			words[i] = strings.Trim(words[i], `"'`)
		}
		prog, args := program(words)
		if prog == "" {
			continue
		}
		if first == "" {
			first = prog
		}
		if nameless[prog] {
			continue
		}
		if launchers[prog] {
			for _, a := range args {
				if a != "" && !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
					if b := path.Base(a); b != "/" && b != "." {
						return prog + "-" + b
					}
				}
			}
		}
		return prog
	}
	if first == "" {
		return "cron"
	}
	return first
}

// program skips settings and wrappers at the start of words and returns
// the program's base name and its arguments.
func program(words []string) (string, []string) {
	for len(words) > 0 {
		w := words[0]
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "=") {
			words = words[1:] // VAR=value
			continue
		}
		base := path.Base(w)
		ops, ok := wrappers[base]
		if !ok {
			return base, words[1:]
		}
		words = words[1:]
		for len(words) > 0 && strings.HasPrefix(words[0], "-") {
			if base == "sudo" && (words[0] == "-u" || words[0] == "-g") && len(words) > 1 {
				words = words[1:]
			}
			words = words[1:]
		}
		for ; ops > 0 && len(words) > 0; ops-- {
			words = words[1:]
		}
	}
	return "", nil
}
