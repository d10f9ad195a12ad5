package exec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/provider"
)

type logs []string

func (l *logs) Log(level apply.Level, src, msg string) {
	*l = append(*l, level.String()+": "+src+": "+msg)
}

func res(title string, kv ...any) *apply.Resource {
	r := &apply.Resource{Type: "exec", Title: title, Params: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Params[kv[i].(string)] = kv[i+1]
	}
	return r
}

// syncAll applies every change and returns the first error.
func syncAll(t *testing.T, r *apply.Resource, l *logs) (int, error) {
	t.Helper()
	changes, err := Provider{}.Changes(context.Background(), r, l)
	if err != nil {
		return 0, err
	}
	for _, c := range changes {
		if _, err := c.Sync(context.Background(), l); err != nil {
			return len(changes), err
		}
	}
	return len(changes), nil
}

func TestExecGuardsAndRuns(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	tests := []struct {
		name string
		r    *apply.Resource
		runs bool
	}{
		{"plain", res("echo x >> " + marker), true},
		{"refreshonly", res("echo x >> "+marker, "refreshonly", true), false},
		{"creates exists", res("echo x >> "+marker, "creates", dir), false},
		{"creates missing", res("echo x >> "+marker, "creates", filepath.Join(dir, "nope")), true},
		{"onlyif fails", res("echo x >> "+marker, "onlyif", "false"), false},
		{"onlyif ok", res("echo x >> "+marker, "onlyif", []any{"true", "test -d " + dir}), true},
		{"unless ok", res("echo x >> "+marker, "unless", "true"), false},
		{"unless fails", res("echo x >> "+marker, "unless", "false"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			var l logs
			n, err := syncAll(t, tt.r, &l)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(marker)
			if (n == 1) != tt.runs || (statErr == nil) != tt.runs {
				t.Fatalf("changes %d, ran %v, want run %v", n, statErr == nil, tt.runs)
			}
		})
	}
}

func TestExecFailureMessageAndOutput(t *testing.T) {
	var l logs
	_, err := syncAll(t, res("/bin/sh -c 'echo out1; echo out2; exit 3'"), &l)
	if err == nil || err.Error() != `'/bin/sh -c 'echo out1; echo out2; exit 3'' returned 3 instead of one of [0]` {
		t.Fatalf("err %v", err)
	}
	if strings.Join(l, "|") != "Notice: Exec[/bin/sh -c 'echo out1; echo out2; exit 3']/returns: out1|Notice: Exec[/bin/sh -c 'echo out1; echo out2; exit 3']/returns: out2" {
		t.Fatalf("logs %q", l)
	}
	l = nil
	if _, err := syncAll(t, res("exit 2", "returns", []any{int64(0), int64(2)}), &l); err != nil {
		t.Fatalf("returns [0,2]: %v", err)
	}
	if _, err := syncAll(t, res("false"), &l); err == nil || err.Error() != "'false' returned 1 instead of one of [0]" {
		t.Fatalf("err %v", err)
	}
	if _, err := syncAll(t, res("exit 1", "returns", []any{int64(0), int64(2)}), &l); err == nil || !strings.HasSuffix(err.Error(), "instead of one of [0,2]") {
		t.Fatalf("err %v", err)
	}
}

func TestExecCwdEnvironmentPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "hello-almanac"), []byte("#!/bin/sh\necho hi\n"), 0o755)
	r := res(`hello-almanac > out; echo "$GREETING" >> out`, "cwd", dir, "environment", []any{"GREETING=bonjour"}, "path", []any{bin, "/usr/bin", "/bin"})
	var l logs
	if _, err := syncAll(t, r, &l); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "out"))
	if string(got) != "hi\nbonjour\n" {
		t.Fatalf("out %q", got)
	}
}

func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "late")
	// The child sleeps in the background of the shell; killing only the
	// shell would leave it to write the marker.
	r := res("(sleep 2; touch "+marker+") & wait", "timeout", 0.2)
	var l logs
	start := time.Now()
	_, err := syncAll(t, r, &l)
	if !errors.Is(err, provider.ErrTimeout) {
		t.Fatalf("err %v", err)
	}
	if time.Since(start) > 1500*time.Millisecond {
		t.Fatal("timeout did not stop the command")
	}
	// Let the orphan, had it survived, write its marker.
	out, code, _ := provider.Run(context.Background(), provider.Command{Line: "sleep 2.2; test -e " + marker})
	if code == 0 {
		t.Fatalf("process group survived the timeout %s", out)
	}
}

func TestExecRefresh(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	var l logs
	ctx := context.Background()
	if err := (Provider{}).Refresh(ctx, res("echo cmd >> "+log, "refreshonly", true), &l); err != nil {
		t.Fatal(err)
	}
	if err := (Provider{}).Refresh(ctx, res("echo cmd >> "+log, "refresh", "echo refresh >> "+log), &l); err != nil {
		t.Fatal(err)
	}
	// A failing refresh command is ignored; a failing command is not.
	if err := (Provider{}).Refresh(ctx, res("true", "refresh", "false"), &l); err != nil {
		t.Fatalf("refresh => false failed the resource: %v", err)
	}
	if err := (Provider{}).Refresh(ctx, res("false", "refreshonly", true), &l); err == nil || err.Error() != "'false' returned 1 instead of one of [0]" {
		t.Fatalf("err %v", err)
	}
	// Guards apply to refreshes too.
	if err := (Provider{}).Refresh(ctx, res("echo guarded >> "+log, "creates", dir), &l); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(log)
	if string(got) != "cmd\nrefresh\n" {
		t.Fatalf("log %q", got)
	}
}

func TestExecBadParams(t *testing.T) {
	for _, r := range []*apply.Resource{
		res("true", "returns", "x"),
		res("true", "timeout", "soon"),
		res("true", "environment", "NOEQUALS"),
	} {
		if _, err := (Provider{}).Changes(context.Background(), r, &logs{}); err == nil {
			t.Errorf("%v: no error", r.Params)
		}
	}
}
