package cli

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/almanac-sh/almanac/internal/store"
)

// hostile is what a client could have the daemon store: it would set the
// terminal's title and clear the screen if printed raw.
const hostile = "\x1b]0;pwned\a\x1b[2J"

// TestClientOutputEscaped: tables and text show control characters as
// escapes; JSON carries them (encoded) unchanged; logs escapes only on a
// terminal, and never with --raw.
func TestClientOutputEscaped(t *testing.T) {
	st, _, server := fakeDaemon(t)
	if _, err := st.JobCreate(t.Context(), store.JobCreateParams{Spec: store.JobSpec{Name: "victim", Cron: "@daily", Command: []string{"true"}, Notify: []string{"mailto:ops@example.com" + hostile}}}); err != nil {
		t.Fatal(err)
	}
	st.AddEvent(store.Event{Time: cliT0, Kind: store.EventRebootLocked, Resource: "reboot-group/db", Message: hostile + " holds a reboot slot"})
	run := st.AddRun(store.Run{Job: "victim", State: store.RunSucceeded, Output: []byte("done" + hostile + "\n")})

	for _, args := range [][]string{{"get", "events"}, {"describe", "job", "victim", "--runs", "0"}} {
		out, errOut, code := runCLI(t, append(args, server)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.ContainsAny(out, "\x1b\a") || !strings.Contains(out, `\x1b]0;pwned\x07`) {
			t.Errorf("%v printed control characters raw:\n%q", args, out)
		}
	}
	out, _, _ := runCLI(t, "get", "events", "-o", "json", server)
	var page struct {
		Items []struct {
			Message string `json:"message"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil || len(page.Items) == 0 || !strings.HasPrefix(page.Items[0].Message, hostile) {
		t.Errorf("JSON lost the message as stored: %v %q", err, out)
	}

	id := strconv.FormatInt(run.ID, 10)
	defer func(f func(io.Writer) bool) { isTerminal = f }(isTerminal)
	for _, tt := range []struct {
		terminal, raw, escaped bool
	}{
		{false, false, false},
		{true, false, true},
		{true, true, false},
	} {
		isTerminal = func(io.Writer) bool { return tt.terminal }
		args := []string{"logs", id, server}
		if tt.raw {
			args = append(args, "--raw")
		}
		out, errOut, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("logs: %d %s", code, errOut)
		}
		if got := !strings.Contains(out, "\x1b"); got != tt.escaped {
			t.Errorf("logs on a terminal %v, --raw %v: %q", tt.terminal, tt.raw, out)
		}
	}
}
