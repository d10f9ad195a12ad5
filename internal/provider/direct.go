package provider

import (
	"os"
	"path/filepath"
	"strings"
)

// shellSpecial are the characters that make /bin/sh do more with a command
// line than split it on blanks: quoting, expansion, globbing, redirection,
// pipelines and lists, comments, assignments. A line with any of them is
// the shell's to run (Ruby's exec, and so Puppet's exec provider, draws the
// line in the same place).
const shellSpecial = "*?[]{}()<>~&|\\$;'`\"\n\r#=%!^"

// shellWords are the first words /bin/sh runs itself rather than as a
// program: its reserved words and its builtins (dash's, which include
// echo, printf, test and kill, whose programs behave differently).
var shellWords = map[string]bool{
	"!": true, "case": true, "do": true, "done": true, "elif": true, "else": true, "esac": true, "fi": true,
	"for": true, "if": true, "in": true, "then": true, "until": true, "while": true,
	".": true, ":": true, "[": true, "alias": true, "bg": true, "break": true, "cd": true, "chdir": true,
	"command": true, "continue": true, "echo": true, "eval": true, "exec": true, "exit": true, "export": true,
	"false": true, "fc": true, "fg": true, "getopts": true, "hash": true, "jobs": true, "kill": true,
	"local": true, "printf": true, "pwd": true, "read": true, "readonly": true, "return": true, "set": true,
	"shift": true, "test": true, "times": true, "trap": true, "true": true, "type": true, "ulimit": true,
	"umask": true, "unalias": true, "unset": true, "wait": true,
}

// direct reports how to run c without a shell when /bin/sh would only split
// its line on blanks and run the program the first word names: the
// program's path and its argv. ok is false, and the line is the shell's,
// for anything else: a special character, a first word the shell runs
// itself, a program named by a relative path or not found as an
// executable file on the PATH the command sees, an environment that sets
// PATH itself. Running the program directly saves a process per command,
// half the cost of a short one.
func direct(c Command) (path string, argv []string, ok bool) {
	if strings.ContainsAny(c.Line, shellSpecial) {
		return "", nil, false
	}
	argv = strings.FieldsFunc(c.Line, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(argv) == 0 || shellWords[argv[0]] {
		return "", nil, false
	}
	for _, e := range c.Env {
		if strings.HasPrefix(e, "PATH=") {
			return "", nil, false
		}
	}
	name := argv[0]
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) || !executable(name) {
			return "", nil, false
		}
		return name, argv, true
	}
	search := c.Path
	if search == "" {
		search = os.Getenv("PATH")
	}
	for _, dir := range strings.Split(search, ":") {
		if !filepath.IsAbs(dir) {
			// "" and relative entries mean the working directory: the
			// shell's to resolve.
			return "", nil, false
		}
		if p := filepath.Join(dir, name); executable(p) {
			return p, argv, true
		}
	}
	return "", nil, false
}

// executable reports whether p is a regular file someone may execute.
func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
