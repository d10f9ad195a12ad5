package supervisor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Main is the supervisor: `almanac __supervise DIR`. It runs the command
// DIR/spec.json describes, tells the daemon on stdout that it started
// ("ok" or "error: ..."), and returns when the command has ended and its
// status is on disk. Its stderr is DIR/supervisor.log.
//
// It disregards SIGHUP, SIGINT and SIGTERM: the daemon stops a run by
// signalling the command's process group, never the supervisor, and a
// terminal hang-up or a signal to the daemon's group must not cut the
// status off.
func Main(args []string, stdout, stderr io.Writer) int {
	// Caught, not ignored: an ignored signal stays ignored in the command
	// across exec, and the command must stop on SIGTERM.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		for range sigs {
		}
	}()
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: almanac "+Mode+" DIR")
		return 2
	}
	dir := args[0]
	var spec Spec
	if err := readJSON(dir, specFile, &spec); err != nil {
		fmt.Fprintf(stdout, "error: %v\n", err)
		return 1
	}
	st, err := supervise(dir, spec, func(err error) {
		if err != nil {
			fmt.Fprintf(stdout, "error: %v\n", err)
		} else {
			fmt.Fprintln(stdout, "ok")
		}
		if f, ok := stdout.(*os.File); ok {
			f.Close()
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "almanac supervisor: %v\n", err)
	}
	if werr := writeFile(dir, statusFile, st, 0o600, true); werr != nil {
		fmt.Fprintf(stderr, "almanac supervisor: record the command's end: %v\n", werr)
		return 1
	}
	return 0
}

// supervise starts the command, reports the start through started (nil or
// the error), and waits for it to end.
func supervise(dir string, spec Spec, started func(error)) (Status, error) {
	fail := func(err error) (Status, error) {
		started(err)
		return Status{Error: "start: " + err.Error(), EndedAt: time.Now()}, err
	}
	if len(spec.Argv) == 0 {
		return fail(errors.New("no command"))
	}
	out, err := os.OpenFile(filepath.Join(dir, OutputFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fail(err)
	}
	defer out.Close()
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c := spec.Credential; c != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: c.UID, Gid: c.GID, Groups: append([]uint32{}, c.Groups...)}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return fail(err)
	}
	w.Close()
	startedAt := time.Now()
	pgid := cmd.Process.Pid
	pids := Pids{Supervisor: os.Getpid(), PGID: pgid, BootID: spec.BootID, StartedAt: startedAt}
	pids.SupervisorStart, _, _, _ = procStart(os.Getpid())
	pids.Start, _, _, _ = procStart(pgid)
	if err := writeFile(dir, pidFile, pids, 0o600, false); err != nil {
		// Without pid.json no later daemon can find the command: do not
		// leave it running unwatched.
		syscall.Kill(-pgid, syscall.SIGKILL)
		cmd.Wait()
		r.Close()
		return fail(fmt.Errorf("record the process ids: %w", err))
	}
	started(nil)
	lw := &logWriter{f: out, keep: max(spec.Keep, 1)}
	copied := make(chan struct{})
	go func() {
		io.Copy(lw, r)
		r.Close()
		close(copied)
	}()
	werr := cmd.Wait()
	// The run owns its process group: whatever it left behind goes with
	// it, which also closes the output pipe.
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-copied
	st := Status{EndedAt: time.Now(), Output: lw.n}
	if st.ExitCode, werr = ExitStatus(werr); werr != nil {
		st.Error = werr.Error()
	}
	if err := out.Sync(); err != nil {
		return st, fmt.Errorf("sync the output: %w", err)
	}
	return st, nil
}

// ExitStatus reads what exec.Cmd.Wait returned: the exit status of a
// process that exited, or the error of one that did not (killed by a
// signal).
func ExitStatus(err error) (*int, error) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return new(int), nil
	case errors.As(err, &ee) && ee.Exited():
		c := ee.ExitCode()
		return &c, nil
	}
	return nil, err
}

// logWriter appends to the output log and, once it has passed twice the
// kept size, releases the disk space of everything before the kept tail by
// punching a hole: offsets stay what they were, so a reader following the
// log needs no notice.
type logWriter struct {
	f        *os.File
	keep     int64
	n        int64 // bytes written
	released int64 // bytes at the head whose space was released
	noPunch  bool
}

func (l *logWriter) Write(b []byte) (int, error) {
	n, err := l.f.Write(b)
	l.n += int64(n)
	if err != nil {
		return n, err
	}
	if !l.noPunch && l.n-l.released > 2*l.keep {
		upto := (l.n - l.keep) &^ 4095
		if upto > l.released {
			if perr := unix.Fallocate(int(l.f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, l.released, upto-l.released); perr != nil {
				l.noPunch = true
				fmt.Fprintf(os.Stderr, "almanac supervisor: the file system cannot release the output log's head (%v); it keeps growing\n", perr)
			} else {
				l.released = upto
			}
		}
	}
	return n, nil
}
