package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/almanac-sh/almanac/internal/apply"
)

var nolog = apply.LoggerFunc(func(apply.Level, string, string) {})

// svc is a fake service whose "running" state is a pid file; every action is
// appended to a journal.
func svc(dir string, kv ...any) *apply.Resource {
	pid, j := filepath.Join(dir, "pid"), filepath.Join(dir, "journal")
	r := &apply.Resource{Type: "service", Title: "web", Params: map[string]any{
		"status": "test -e " + pid,
		"start":  "touch " + pid + "; echo start >> " + j,
		"stop":   "rm -f " + pid + "; echo stop >> " + j,
	}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Params[kv[i].(string)] = kv[i+1]
	}
	return r
}

func journal(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "journal"))
	return string(b)
}

func TestServiceEnsureAndRefresh(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	p := Provider{}
	// Refreshing a stopped service does nothing.
	if err := p.Refresh(ctx, svc(dir), nolog); err != nil || journal(dir) != "" {
		t.Fatalf("refresh of stopped service: %v %q", err, journal(dir))
	}
	ch, err := p.Changes(ctx, svc(dir, "ensure", "running"), nolog)
	if err != nil || len(ch) != 1 || ch[0].Is != "'stopped'" || ch[0].Should != "'running'" || !ch[0].InvalidatesRefreshes {
		t.Fatalf("%+v %v", ch, err)
	}
	if msg, err := ch[0].Sync(ctx, nolog); err != nil || msg != "ensure changed 'stopped' to 'running'" {
		t.Fatalf("%q %v", msg, err)
	}
	if ch, _ := p.Changes(ctx, svc(dir, "ensure", "running"), nolog); len(ch) != 0 {
		t.Fatal("running service still out of sync")
	}
	// Refresh without a restart command: stop then start.
	if err := p.Refresh(ctx, svc(dir), nolog); err != nil || journal(dir) != "start\nstop\nstart\n" {
		t.Fatalf("%v %q", err, journal(dir))
	}
	if err := p.Refresh(ctx, svc(dir, "restart", "echo restart >> "+filepath.Join(dir, "journal")), nolog); err != nil || journal(dir) != "start\nstop\nstart\nrestart\n" {
		t.Fatalf("%v %q", err, journal(dir))
	}
	ch, _ = p.Changes(ctx, svc(dir, "ensure", "stopped"), nolog)
	if len(ch) != 1 || ch[0].InvalidatesRefreshes {
		t.Fatalf("%+v", ch)
	}
	ch[0].Sync(ctx, nolog)
	if _, err := os.Stat(filepath.Join(dir, "pid")); err == nil {
		t.Fatal("still running")
	}
}

func TestServiceErrors(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ch, _ := Provider{}.Changes(ctx, svc(dir, "ensure", "running", "start", "echo boom; exit 1"), nolog)
	_, err := ch[0].Sync(ctx, nolog)
	if err == nil || err.Error() != "Could not start Service[web]: Execution of 'echo boom; exit 1' returned 1: boom" {
		t.Fatalf("err %v", err)
	}
	if _, err := (Provider{}).Changes(ctx, &apply.Resource{Type: "service", Title: "x", Params: map[string]any{"ensure": "running"}}, nolog); err == nil {
		t.Fatal("no status command accepted")
	}
	if _, err := (Provider{}).Changes(ctx, svc(dir, "ensure", "sleeping"), nolog); err == nil {
		t.Fatal("bad ensure accepted")
	}
}
