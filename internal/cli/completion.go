package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
)

func init() {
	register("completion", "print a shell completion script: completion bash|zsh|fish", runCompletion)
}

// completionShells are the shells completion writes scripts for.
var completionShells = []string{"bash", "zsh", "fish"}

// runCompletion prints the completion script of a shell, made from the
// command and flag tables, so it lists exactly what the binary accepts.
func runCompletion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("completion")
	noDesc := fs.Bool("no-descriptions", false, "zsh, fish: leave out the descriptions of commands and flags")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("completion: want one shell: bash, zsh or fish (almanac completion bash)")
	}
	docs := commandDocs()
	if *noDesc {
		for i := range docs {
			docs[i].summary = ""
			for j := range docs[i].flags {
				docs[i].flags[j].usage = ""
			}
		}
	}
	switch pos[0] {
	case "bash":
		return writeBash(e.stdout, docs)
	case "zsh":
		return writeZsh(e.stdout, docs)
	case "fish":
		return writeFish(e.stdout, docs)
	}
	return usagef("completion: unknown shell %q (want bash, zsh or fish)", pos[0])
}

// commandNames returns the names of docs.
func commandNames(docs []cmdDoc) []string {
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = d.name
	}
	return names
}

// writeBash writes a bash completion function: command names first, then
// the command's flags after a '-', its fixed words as the first argument,
// and file names otherwise (and after a flag that takes a value).
func writeBash(w io.Writer, docs []cmdDoc) error {
	var b strings.Builder
	b.WriteString("# bash completion for almanac (almanac completion bash); generated, do not edit.\n")
	b.WriteString("_almanac() {\n")
	b.WriteString("\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	b.WriteString("\tCOMPREPLY=()\n")
	fmt.Fprintf(&b, "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n\t\treturn\n\tfi\n",
		shQuote(strings.Join(append(commandNames(docs), "help"), " ")))
	b.WriteString("\tlocal flags='' valued='' words=''\n")
	b.WriteString("\tcase ${COMP_WORDS[1]} in\n")
	for _, d := range docs {
		var flags, valued []string
		for _, f := range d.flags {
			flags = append(flags, dashName(f.name))
			if f.arg != "" {
				valued = append(valued, "-"+f.name, "--"+f.name)
			}
		}
		fmt.Fprintf(&b, "\t%s) flags=%s valued=%s words=%s ;;\n", d.name,
			shQuote(strings.Join(flags, " ")), shQuote(strings.Join(valued, " ")), shQuote(strings.Join(d.words, " ")))
	}
	fmt.Fprintf(&b, "\thelp) words=%s ;;\n", shQuote(strings.Join(commandNames(docs), " ")))
	b.WriteString("\tesac\n")
	b.WriteString("\tcase $cur in\n\t-*=*) return ;;\n\t-*)\n\t\tCOMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n\t\treturn ;;\n\tesac\n")
	b.WriteString("\tcase \" $valued \" in *\" $prev \"*) return ;; esac\n")
	b.WriteString("\tif [ -n \"$words\" ]; then\n")
	b.WriteString("\t\tlocal i n=0\n\t\tfor ((i = 2; i < COMP_CWORD; i++)); do\n")
	b.WriteString("\t\t\tcase ${COMP_WORDS[i]} in -*) case \" $valued \" in *\" ${COMP_WORDS[i]} \"*) i=$((i + 1)) ;; esac ;; *) n=$((n + 1)) ;; esac\n")
	b.WriteString("\t\tdone\n")
	b.WriteString("\t\tif [ \"$n\" -eq 0 ]; then\n\t\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n\t\tfi\n\tfi\n")
	b.WriteString("}\n")
	b.WriteString("complete -o default -F _almanac almanac\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// zshDesc makes s usable inside an _arguments or _describe description.
func zshDesc(s string) string {
	s = strings.NewReplacer("[", "(", "]", ")", ":", " -", "\\", "/", "\n", " ").Replace(s)
	return strings.ReplaceAll(s, "'", `'\''`)
}

// writeZsh writes a zsh completion function for _arguments.
func writeZsh(w io.Writer, docs []cmdDoc) error {
	var b strings.Builder
	b.WriteString("#compdef almanac\n# zsh completion for almanac (almanac completion zsh); generated, do not edit.\n")
	b.WriteString("_almanac() {\n")
	b.WriteString("\tlocal -a cmds\n\tcmds=(\n")
	for _, d := range docs {
		if d.summary == "" {
			fmt.Fprintf(&b, "\t\t'%s'\n", d.name)
		} else {
			fmt.Fprintf(&b, "\t\t'%s:%s'\n", d.name, zshDesc(d.summary))
		}
	}
	b.WriteString("\t)\n")
	b.WriteString("\tif (( CURRENT == 2 )); then\n\t\t_describe -t commands 'almanac command' cmds\n\t\treturn\n\tfi\n")
	b.WriteString("\tlocal cmd=${words[2]}\n\tshift words\n\t(( CURRENT-- ))\n")
	b.WriteString("\tcase $cmd in\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "\t%s)\n\t\t_arguments -S \\\n", d.name)
		for _, f := range d.flags {
			desc := ""
			if f.usage != "" {
				desc = "[" + zshDesc(f.usage) + "]"
			}
			if f.arg == "" {
				fmt.Fprintf(&b, "\t\t\t'%s%s' \\\n", dashName(f.name), desc)
			} else {
				fmt.Fprintf(&b, "\t\t\t'%s=%s:%s:_files' \\\n", dashName(f.name), desc, zshDesc(f.arg))
			}
		}
		if len(d.words) > 0 {
			fmt.Fprintf(&b, "\t\t\t'1:argument:(%s)' \\\n", strings.Join(d.words, " "))
		}
		b.WriteString("\t\t\t'*:file:_files' ;;\n")
	}
	fmt.Fprintf(&b, "\thelp)\n\t\t_arguments '1:command:(%s)' ;;\n", strings.Join(commandNames(docs), " "))
	b.WriteString("\tesac\n}\n")
	b.WriteString("if [ \"$funcstack[1]\" = \"_almanac\" ]; then\n\t_almanac \"$@\"\nelse\n\tcompdef _almanac almanac\nfi\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fishDesc is the -d option of a fish completion, or nothing.
func fishDesc(s string) string {
	if s == "" {
		return ""
	}
	return " -d " + shQuote(s)
}

// writeFish writes fish completions: commands, then per command its
// flags and fixed words.
func writeFish(w io.Writer, docs []cmdDoc) error {
	var b strings.Builder
	b.WriteString("# fish completion for almanac (almanac completion fish); generated, do not edit.\n")
	names := strings.Join(append(commandNames(docs), "help"), " ")
	fmt.Fprintf(&b, "complete -c almanac -n 'not __fish_seen_subcommand_from %s' -f\n", names)
	for _, d := range docs {
		fmt.Fprintf(&b, "complete -c almanac -n 'not __fish_seen_subcommand_from %s' -a %s%s\n", names, d.name, fishDesc(d.summary))
	}
	fmt.Fprintf(&b, "complete -c almanac -n 'not __fish_seen_subcommand_from %s' -a help -d 'show a command'\\''s flags'\n", names)
	for _, d := range docs {
		cond := "'__fish_seen_subcommand_from " + d.name + "'"
		for _, f := range d.flags {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			req := ""
			if f.arg != "" {
				req = " -r"
			}
			fmt.Fprintf(&b, "complete -c almanac -n %s %s%s%s\n", cond, opt, req, fishDesc(f.usage))
		}
		if len(d.words) > 0 {
			fmt.Fprintf(&b, "complete -c almanac -n %s -a %s\n", cond, shQuote(strings.Join(d.words, " ")))
		}
	}
	fmt.Fprintf(&b, "complete -c almanac -n '__fish_seen_subcommand_from help' -f -a %s\n", shQuote(strings.Join(commandNames(docs), " ")))
	_, err := io.WriteString(w, b.String())
	return err
}
