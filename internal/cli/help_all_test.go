package cli

import (
	"bytes"
	"sort"
	"strings"
	"testing"
)

// TestEveryHelpIsClean runs --help and -h of every command (and of the
// subcommands the commands take as their first argument): each prints its
// usage, and none says "panic" (the flag package reports a flag whose
// zero value panics in String by printing the panic into the usage).
func TestEveryHelpIsClean(t *testing.T) {
	t.Parallel()
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) < 20 {
		t.Fatalf("only %d commands registered: %v", len(names), names)
	}
	invocations := [][]string{{"--help"}, {"-h"}, {"help"}}
	sub := map[string][]string{
		"get": {"jobs", "runs", "events", "windows", "nodes"}, "import": {"crontab", "cronjob", "timer"},
		"describe": {"job", "run"}, "wave": {"pause", "resume", "abort"}, "inventory": {"list"},
	}
	for _, name := range names {
		invocations = append(invocations, []string{name, "--help"}, []string{name, "-h"})
		for _, s := range sub[name] {
			invocations = append(invocations, []string{name, s, "--help"})
		}
	}
	for _, args := range invocations {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(t.Context(), args, &out, &errOut)
			text := out.String() + errOut.String()
			if strings.Contains(strings.ToLower(text), "panic") || strings.Contains(text, "goroutine ") {
				t.Fatalf("exit %d, output says panic:\n%s", code, text)
			}
			if strings.TrimSpace(text) == "" {
				t.Fatalf("exit %d and no usage printed", code)
			}
		})
	}
}
