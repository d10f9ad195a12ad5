package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/pgtest"
)

// Two daemons in agent mode on one PostgreSQL schema: only the leader
// applies, a follower refuses manual applies, and when the leader is killed
// the other node takes over from the shared state and reports.
func TestEndToEndAgentAppliesOnTheLeaderOnly(t *testing.T) {
	bin := almanacBinary(t)
	url := pgtest.Schema(t) + "&lease_ttl=2s&lease_renew=200ms"
	out := t.TempDir()
	ctx := context.Background()
	// Each node's manifest marks a file of its own, once per apply.
	node := func(name string) (*daemonProc, *apiclient.Client) {
		dir := t.TempDir()
		m := "exec { 'mark': command => 'echo x >> " + filepath.Join(out, name) + "' }\n"
		if err := os.WriteFile(filepath.Join(dir, "site.pp"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		d := startDaemon(t, bin, t.TempDir(), "--node", name, "--store", url, "--manifests", dir, "--run-interval", "0")
		c := d.client(t)
		return d, c
	}
	marks := func(name string) int {
		b, _ := os.ReadFile(filepath.Join(out, name))
		return strings.Count(string(b), "\n")
	}

	n1, c1 := node("n1")
	eventually(t, "n1's first apply", 30*time.Second, func() (bool, error) { return marks("n1") >= 1, nil })
	n2, c2 := node("n2")
	eventually(t, "n2 to stand by", 30*time.Second, func() (bool, error) {
		l, err := c2.ApplyList(ctx, "", 1)
		return err == nil && l.Agent.Standby, err
	})

	// A manual apply sent to the follower is forwarded to the leader,
	// which applies it; the follower still applies nothing.
	before := marks("n1")
	cmd := exec.Command(bin, "apply", "--server", n2.url, "--reason", "forwarded")
	cmd.Env = append(os.Environ(), "ALMANAC_TOKEN="+e2eToken)
	msg, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "forwarded to the leader at "+n1.url) {
		t.Errorf("apply --server on the follower: %v\n%s", err, msg)
	}
	eventually(t, "the forwarded apply's report on the leader", 30*time.Second, func() (bool, error) {
		l, err := c1.ApplyList(ctx, "", 1)
		return err == nil && len(l.Items) == 1 && l.Items[0].Trigger.Reason == "forwarded" && l.Items[0].Status != "", err
	})
	if marks("n1") <= before {
		t.Error("the forwarded apply did not run the exec on the leader")
	}
	// A trigger on the leader itself runs too.
	before = marks("n1")
	if q, err := c1.ApplyTrigger(ctx, "e2e"); err != nil || !q.Queued {
		t.Fatalf("trigger on the leader: %+v, %v", q, err)
	}
	eventually(t, "the leader's manual apply report", 30*time.Second, func() (bool, error) {
		l, err := c1.ApplyList(ctx, "", 1)
		return err == nil && len(l.Items) == 1 && l.Items[0].Trigger.Reason == "e2e", err
	})
	if marks("n1") <= before {
		t.Error("the leader's manual apply did not run the exec")
	}
	if n := marks("n2"); n != 0 {
		t.Fatalf("the follower applied %d times", n)
	}

	// Kill the leader: n2 takes over once the lease expires.
	if err := n1.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-n1.done
	var l apitype.ApplyList
	eventually(t, "n2 to take over and report its apply", 30*time.Second, func() (bool, error) {
		var err error
		l, err = c2.ApplyList(ctx, "", 100)
		return err == nil && len(l.Items) > 0 && l.Items[0].Host == "n2", err
	})
	if marks("n2") != 1 {
		t.Errorf("n2 marked %d times, want 1", marks("n2"))
	}
	hosts := map[string]bool{}
	for _, r := range l.Items {
		hosts[r.Host] = true
	}
	if l.Agent.Standby || l.Items[0].Trigger.Kind != string(agent.TriggerLeader) || !hosts["n1"] {
		t.Errorf("after the takeover: agent %+v, newest report %+v, hosts %v", l.Agent, l.Items[0], hosts)
	}
}
