package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
)

// TestWaveE2E runs a real daemon (its controller fans out on its own node,
// labelled role=db) and steers a fleet-wide job from the command line:
// the instant's run is targeted at the node and succeeds, wave status and
// get runs --node show it, pause shows in describe, and a window naming no
// gate is refused naming the flag.
func TestWaveE2E(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 6, 1, 12, 0, 30, 0, time.UTC)
	clk := clock.NewFake(start)
	d := daemontest.Start(t, daemontest.Options{Clock: clk, Token: e2eToken, Args: []string{"--node", "db-1", "--node-label", "role=db"}})

	if out, errOut, code := runCLI(t, "run", "patch", "--schedule", "* * * * *", "--nodes", "role=db", "--max-parallel", "1", "--max-failures", "1",
		"--window", "default=anytime", "--server", d.URL, "--token", e2eToken, "--", "true"); code != exitOK {
		t.Fatalf("run: %d %q %q", code, out, errOut)
	}
	_, errOut, code := runCLI(t, "run", "other", "--schedule", "* * * * *", "--nodes", "all", "--window", "role=db=no-such-window",
		"--server", d.URL, "--token", e2eToken, "--", "true")
	if code != exitUsage || !strings.Contains(errOut, `run other: --window "role=db=no-such-window": no gate is named "no-such-window"`) {
		t.Fatalf("a window naming no gate: %d %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "wave", "status", "patch", "--server", d.URL, "--token", e2eToken)
	if code != exitFailure || !strings.Contains(errOut, `job "patch" has no wave: no instant of it has fanned out to nodes`) ||
		strings.Contains(errOut, "nodes selector is any") {
		t.Fatalf("wave status before any instant: %d %q", code, errOut)
	}

	instant := start.Add(30 * time.Second) // 12:01
	clk.Set(instant)
	var w apitype.Wave
	eventually(t, "the 12:01 wave is done", 30*time.Second, func() (bool, error) {
		out, errOut, code := runCLI(t, "wave", "status", "patch", "--instant", instant.Format(time.RFC3339), "-o", "json", "--server", d.URL, "--token", e2eToken)
		if code != exitOK {
			return false, fmt.Errorf("exit %d: %s", code, errOut)
		}
		w = apitype.Wave{}
		if err := json.Unmarshal([]byte(out), &w); err != nil {
			return false, err
		}
		return w.State == apitype.WaveDone, nil
	})
	if w.Counts != (apitype.WaveCounts{Total: 1, Done: 1}) || w.Nodes[0].Node != "db-1" || w.MaxParallel != 1 || w.MaxFailures != 1 {
		t.Fatalf("wave = %+v", w)
	}
	out := cliAt(t, d.URL, "wave", "status", "patch", "--instant", instant.Format(time.RFC3339))
	if !strings.HasPrefix(out, "wave of patch at "+instant.Local().Format(time.RFC3339)+": done; 1 node, 1 done, 0 running, 0 waiting, 0 failed, 0 missed, 0 skipped; max_parallel 1, max_failures 1\n") ||
		!regexp.MustCompile(`(?m)^db-1\s+done\s+`+strconv.FormatInt(w.Nodes[0].RunID, 10)+`\s+1\s+-$`).MatchString(out) {
		t.Fatalf("wave status:\n%s", out)
	}
	out = cliAt(t, d.URL, "get", "runs", "--node", "db-1", "--job", "patch")
	if !regexp.MustCompile(`(?m)^` + strconv.FormatInt(w.Nodes[0].RunID, 10) + `\s+patch\s+db-1\s+succeeded\s`).MatchString(out) {
		t.Fatalf("get runs --node db-1:\n%s", out)
	}
	if out = cliAt(t, d.URL, "get", "runs", "--node", "db-2"); strings.TrimSpace(out) != "ID  JOB  NODE  STATE  REASON  ATTEMPT  SCHEDULED  STARTED  DURATION  EXIT" {
		t.Fatalf("get runs --node db-2 (no runs):\n%q", out)
	}

	cliAt(t, d.URL, "wave", "pause", "patch")
	if out = cliAt(t, d.URL, "describe", "job", "patch"); !strings.Contains(out, "Wave paused:") || !strings.Contains(out, "default: anytime") {
		t.Errorf("describe after pause:\n%s", out)
	}
	if out = cliAt(t, d.URL, "get", "events", "--job", "patch", "--kind", "wave"); !strings.Contains(out, "wave.paused") {
		t.Errorf("no wave.paused event:\n%s", out)
	}
	if out = cliAt(t, d.URL, "wave", "resume", "patch"); out != "waves of job patch resumed\n" {
		t.Errorf("resume: %q", out)
	}
}
