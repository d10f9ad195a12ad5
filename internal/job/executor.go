package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/supervisor"
)

// DefaultMaxOutput bounds a run's captured output: the tail is kept.
const DefaultMaxOutput = 1 << 20

// Executor runs commands. It is the seam between the controller and
// where a run executes: Supervised (a supervisor process per run that
// outlives the daemon) is the daemon's, Exec (child processes of the
// daemon) serves embedded uses and tests, and an executor that runs
// commands elsewhere (a Kubernetes Job, say) plugs in the same way.
type Executor interface {
	// Start starts run's command.
	Start(ctx context.Context, run store.Run, spec store.JobSpec) (Process, error)
	// Attach finds the process of a run that a previous life of this
	// node started and that was still running when it ended: a Process
	// to follow, stop and wait for like a started one, possibly done
	// already. It fails with ErrNotAttachable if the executor cannot
	// find it again (nothing then knows the run's outcome), and ErrLost
	// if the machine that ran it was lost (rebooted).
	Attach(ctx context.Context, run store.Run) (Process, error)
}

// ErrNotAttachable: the executor cannot find a run's process again.
var ErrNotAttachable = errors.New("the run's process cannot be found again")

// ErrLost: the machine a run executed on was lost, and its outcome with it.
var ErrLost = errors.New("the run's machine was lost")

// Process is a started run.
type Process interface {
	// Done is closed when the process has exited and its output is complete.
	Done() <-chan struct{}
	// Result is valid after Done is closed.
	Result() Result
	// Terminate asks the process group to stop (SIGTERM).
	Terminate()
	// Kill stops the process group at once (SIGKILL).
	Kill()
}

// durable is a Process that outlives the daemon: at shutdown the
// controller leaves it running for the next life to attach to, and once
// its end is recorded it Releases what it kept on disk.
type durable interface {
	Release()
}

// LiveOutput is implemented by a Process whose output can be read while it
// runs: the bytes from offset (counted from the start of its output) on,
// and the offset to ask from next.
type LiveOutput interface {
	OutputSince(offset int64) ([]byte, int64)
}

// Result is how a process ended.
type Result struct {
	// ExitCode is the exit status, nil if the process did not exit normally
	// (killed by a signal, or never started).
	ExitCode *int
	// Output is the tail of the combined stdout and stderr.
	Output []byte
	// Err describes an abnormal end ("signal: killed"), or nil.
	Err error
	// Ended is when the process ended; zero means when the controller
	// learnt of it.
	Ended time.Time
}

// Exec runs commands as local processes, each in its own process group, so
// that terminating a run reaches every process it started. The zero value
// is ready to use.
type Exec struct {
	// MaxOutput bounds captured output (default DefaultMaxOutput).
	MaxOutput int
	// Environ is the base environment (default os.Environ()).
	Environ []string
}

// Env returns the variables almanac adds to every run's environment.
// ALMANAC_NODE is the node that claimed the run (the one running it).
func Env(run store.Run) []string {
	return []string{
		"ALMANAC_JOB=" + run.Job,
		"ALMANAC_NODE=" + run.Node,
		"ALMANAC_RUN_ID=" + strconv.FormatInt(run.ID, 10),
		"ALMANAC_SCHEDULED_TIME=" + run.ScheduledTime.UTC().Format(time.RFC3339),
		"ALMANAC_ATTEMPT=" + strconv.Itoa(run.Attempt),
	}
}

// command is a run's command as the executors start it.
type command struct {
	argv []string
	env  []string
	dir  string
	// id, if set, is who it runs as.
	id *identity
}

// prepare resolves what a run executes: argv commands run directly, shell
// strings by /bin/sh -c; the environment is base (default os.Environ()),
// run_as's HOME, USER and LOGNAME,
// the spec's variables in name order, then almanac's.
func prepare(run store.Run, spec store.JobSpec, base []string) (command, error) {
	var c command
	switch {
	case spec.Shell != "":
		c.argv = []string{"/bin/sh", "-c", spec.Shell}
	case len(spec.Command) > 0:
		c.argv = append([]string(nil), spec.Command...)
	default:
		return c, errors.New("no command")
	}
	if base == nil {
		base = os.Environ()
	}
	env := append([]string(nil), base...)
	if spec.RunAs != "" {
		id, err := lookupRunAs(spec.RunAs)
		if err != nil {
			return c, fmt.Errorf("run_as: %w", err)
		}
		c.id = id
		env = id.environ(env)
	}
	// The job's env comes after run_as's HOME, USER and LOGNAME, so it
	// wins: a crontab's HOME= line overrides the user's home, as in cron.
	keys := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+spec.Env[k])
	}
	c.env = append(env, Env(run)...)
	c.dir = spec.Cwd
	return c, nil
}

// Start implements Executor: argv commands run directly, shell strings by
// /bin/sh -c; stdin is /dev/null.
func (e *Exec) Start(_ context.Context, run store.Run, spec store.JobSpec) (Process, error) {
	c, err := prepare(run, spec, e.Environ)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.id != nil {
		cmd.SysProcAttr.Credential = c.id.credential()
	}
	cmd.Env = c.env
	cmd.Dir = c.dir
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	max := e.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	p := &proc{cmd: cmd, pgid: cmd.Process.Pid, out: &tail{max: max}, done: make(chan struct{})}
	// Not reaped before Wait below, so its /proc entry is there to read.
	if st, err := readStat(p.pgid); err == nil {
		p.start = st.Start
	}
	copied := make(chan struct{})
	go func() {
		io.Copy(p.out, r)
		r.Close()
		close(copied)
	}()
	go func() {
		err := cmd.Wait()
		// The run owns its process group: whatever it left behind goes
		// with it, which also closes the output pipe.
		syscall.Kill(-p.pgid, syscall.SIGKILL)
		<-copied
		res := Result{Output: p.out.bytes()}
		res.ExitCode, res.Err = supervisor.ExitStatus(err)
		p.res = res
		close(p.done)
	}()
	return p, nil
}

// Attach implements Executor: a child of a previous daemon cannot be
// waited for, only stopped (orphan.go).
func (e *Exec) Attach(context.Context, store.Run) (Process, error) { return nil, ErrNotAttachable }

type proc struct {
	cmd   *exec.Cmd
	pgid  int
	start int64 // start time of the group's first process, clock ticks since boot
	out   *tail
	done  chan struct{}
	res   Result
}

func (p *proc) Done() <-chan struct{} { return p.done }
func (p *proc) Result() Result        { return p.res }
func (p *proc) Terminate()            { p.signal(syscall.SIGTERM) }
func (p *proc) Kill()                 { p.signal(syscall.SIGKILL) }

// Group implements grouped.
func (p *proc) Group() store.RunProcess { return store.RunProcess{PGID: p.pgid, Start: p.start} }

// grouped is a Process that runs in a process group of its own, which the
// controller records so that a later life can stop it after a crash.
type grouped interface {
	Group() store.RunProcess
}

func (p *proc) signal(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	syscall.Kill(-p.pgid, sig)
}

// tail is an io.Writer that keeps the last max bytes written.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	if len(b) >= t.max {
		t.dropped += int64(len(t.buf) + len(b) - t.max)
		t.buf = append(t.buf[:0], b[len(b)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(b) - t.max; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return n, nil
}

// since returns the output from byte offset (counted from the start of the
// stream) on, and the offset after it. Bytes already dropped from the tail
// are skipped: the answer then starts at the oldest byte kept.
func (t *tail) since(offset int64) ([]byte, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	total := t.dropped + int64(len(t.buf))
	if offset >= total {
		return nil, total
	}
	start := max(offset-t.dropped, 0)
	return append([]byte(nil), t.buf[start:]...), total
}

// OutputSince implements LiveOutput.
func (p *proc) OutputSince(offset int64) ([]byte, int64) { return p.out.since(offset) }

// bytes returns the kept tail, prefixed by a note when some was dropped.
func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped == 0 {
		return append([]byte(nil), t.buf...)
	}
	return append([]byte(fmt.Sprintf("[almanac: %d earlier bytes dropped]\n", t.dropped)), t.buf...)
}
