package cli

import (
	"regexp"
	"strings"
	"testing"
)

// TestRunNodes: `almanac run --nodes` stores the job's node selector,
// describe shows it, and a malformed selector is a usage error naming the
// field and the column.
func TestRunNodes(t *testing.T) {
	t.Parallel()
	st, _, server := fakeDaemon(t)
	out, errOut, code := runCLI(t, "run", "rotate", "--schedule", "0 3 * * *", "--nodes", "role in (web,db),zone!=eu", server, "--", "logrotate")
	if code != 0 {
		t.Fatalf("run --nodes: %d %q %q", code, out, errOut)
	}
	if j, _ := st.Job("rotate"); j.Spec.Nodes != "role in (web,db),zone!=eu" {
		t.Fatalf("stored nodes %q", j.Spec.Nodes)
	}
	out, _, code = runCLI(t, "describe", "job", "rotate", server)
	if code != 0 || !regexp.MustCompile(`(?m)^Nodes:\s+role in \(web,db\),zone!=eu$`).MatchString(out) {
		t.Errorf("describe does not show the selector: %d\n%s", code, out)
	}
	_, errOut, code = runCLI(t, "run", "bad", "--schedule", "0 3 * * *", "--nodes", "role=db zone=eu", server, "--", "true")
	if code != exitUsage || !strings.Contains(errOut, "nodes: col 9: want ',' between terms") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("bad selector: %d %q", code, errOut)
	}
}
