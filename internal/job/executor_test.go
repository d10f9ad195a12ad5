package job

import (
	"bytes"
	"context"
	"os"
	"os/user"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
)

func startAndWait(t *testing.T, e *Exec, spec store.JobSpec) Result {
	t.Helper()
	r := store.Run{ID: 42, Job: "demo", ScheduledTime: time.Date(2026, 3, 29, 2, 0, 0, 0, time.UTC), Attempt: 1}
	p, err := e.Start(context.Background(), r, spec)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	return p.Result()
}

func TestExec(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		spec     store.JobSpec
		wantExit int
		want     string
	}{
		{"argv", store.JobSpec{Command: []string{"echo", "a  b", "$HOME"}}, 0, "a  b $HOME\n"},
		{"shell", store.JobSpec{Shell: "echo out; echo err >&2; exit 3"}, 3, "out\nerr\n"},
		{"environment", store.JobSpec{Shell: `echo "$ALMANAC_JOB $ALMANAC_RUN_ID $ALMANAC_SCHEDULED_TIME $ALMANAC_ATTEMPT $X"`, Env: map[string]string{"X": "y"}},
			0, "demo 42 2026-03-29T02:00:00Z 1 y\n"},
		{"cwd", store.JobSpec{Command: []string{"pwd"}, Cwd: dir}, 0, dir + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := startAndWait(t, &Exec{}, tc.spec)
			if res.ExitCode == nil || *res.ExitCode != tc.wantExit || string(res.Output) != tc.want {
				t.Errorf("exit %v output %q err %v; want %d %q", res.ExitCode, res.Output, res.Err, tc.wantExit, tc.want)
			}
		})
	}
	if _, err := (&Exec{}).Start(context.Background(), store.Run{}, store.JobSpec{Command: []string{"/nonexistent/program"}}); err == nil {
		t.Error("starting a missing program succeeded")
	}
}

func TestExecOutputIsBounded(t *testing.T) {
	res := startAndWait(t, &Exec{MaxOutput: 100}, store.JobSpec{Shell: "seq 1 1000"})
	out := string(res.Output)
	if !strings.HasPrefix(out, "[almanac: ") || !strings.HasSuffix(out, "999\n1000\n") {
		t.Errorf("output = %q, want a truncation note and the tail", out)
	}
	if body := out[strings.Index(out, "\n")+1:]; len(body) != 100 {
		t.Errorf("kept %d bytes, want 100", len(body))
	}
}

func TestExecTerminateReachesTheProcessGroup(t *testing.T) {
	marker := t.TempDir() + "/child-alive"
	// The child outlives the shell unless the whole group is signalled.
	p, err := (&Exec{}).Start(context.Background(), store.Run{Job: "g"}, store.JobSpec{
		Shell: "(trap '' TERM; sleep 30; touch " + marker + ") & echo started; wait"})
	if err != nil {
		t.Fatal(err)
	}
	p.Terminate()
	p.Kill()
	<-p.Done()
	res := p.Result()
	if res.ExitCode != nil || res.Err == nil {
		t.Errorf("killed process: exit %v err %v; want a signal", res.ExitCode, res.Err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a child of the killed run survived")
	}
}

func TestTail(t *testing.T) {
	tl := &tail{max: 4}
	for _, s := range []string{"ab", "cd", "e", "fghij", ""} {
		tl.Write([]byte(s))
	}
	if got := tl.bytes(); !bytes.HasSuffix(got, []byte("ghij")) || !bytes.Contains(got, []byte("6 earlier bytes")) {
		t.Errorf("tail = %q", got)
	}
}

// run_as sets HOME, USER and LOGNAME to the user's, but the job's own env
// wins, as a crontab's HOME= line wins over the user's home in cron.
func TestExecEnvWinsOverRunAs(t *testing.T) {
	me, err := user.Current()
	if err != nil {
		t.Skipf("no current user: %v", err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"the user's home", nil, me.HomeDir + " " + me.Username},
		{"the job's HOME", map[string]string{"HOME": "/srv/app"}, "/srv/app " + me.Username},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := startAndWait(t, &Exec{}, store.JobSpec{Shell: `echo "$HOME $USER"`, RunAs: me.Username, Env: tc.env})
			if got := strings.TrimSpace(string(res.Output)); got != tc.want {
				t.Errorf("HOME and USER = %q, want %q", got, tc.want)
			}
		})
	}
}
