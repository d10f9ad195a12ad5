package supervisor

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrNone means a run's directory holds no supervisor to attach to: it was
// never started under one, or its files are gone.
var ErrNone = errors.New("no supervisor recorded")

// ErrRebooted means the machine rebooted since the supervisor started:
// it and its command are gone, and their outcome with them.
var ErrRebooted = errors.New("the machine rebooted since the run started")

// Handle is a supervised command, started or attached to by this daemon.
type Handle struct {
	dir  string
	keep int64
	pids Pids
	done chan struct{}
	once sync.Once
	st   Status
}

// Start writes spec into dir (created, mode 0700) and starts binary in
// supervisor mode on it, in a session of its own so that it outlives the
// caller. It returns once the command has started, or with the reason it
// could not.
func Start(binary, dir string, spec Spec) (*Handle, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	if err := writeFile(dir, specFile, spec, 0o600, false); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	logf, err := os.OpenFile(filepath.Join(dir, logFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(binary, Mode, dir)
	cmd.Stderr = logf
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	// Setsid: no controlling terminal and no process group shared with
	// the daemon, so neither a hang-up nor a signal to the daemon's group
	// reaches it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the supervisor: %w", err)
	}
	line, _ := bufio.NewReader(io.LimitReader(out, 64<<10)).ReadString('\n')
	line = strings.TrimSpace(line)
	if line != "ok" {
		cmd.Wait()
		if msg, ok := strings.CutPrefix(line, "error: "); ok {
			return nil, errors.New(msg)
		}
		return nil, fmt.Errorf("the supervisor ended before the command started; see %s", filepath.Join(dir, logFile))
	}
	h := &Handle{dir: dir, keep: spec.Keep, done: make(chan struct{})}
	if err := readJSON(dir, pidFile, &h.pids); err != nil {
		return nil, fmt.Errorf("the supervisor started but its ids are unreadable: %w", err)
	}
	go func() {
		// The supervisor is this daemon's child: reap it, then read how
		// the command ended.
		cmd.Wait()
		h.finish()
	}()
	return h, nil
}

// Attach finds the supervisor a previous life of the daemon started in dir.
// bootID is the machine's current boot id. It fails with ErrNone if dir
// records no supervisor, and ErrRebooted if the machine rebooted since.
// A supervisor that has ended already gives a Handle that is done.
func Attach(dir, bootID string) (*Handle, error) {
	var spec Spec
	if err := readJSON(dir, specFile, &spec); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNone
		}
		return nil, err
	}
	h := &Handle{dir: dir, keep: spec.Keep, done: make(chan struct{})}
	perr := readJSON(dir, pidFile, &h.pids)
	// A recorded end is the real outcome, even if the machine has
	// rebooted since (the status is fsync'd).
	if h.readStatus() {
		close(h.done)
		return h, nil
	}
	if spec.BootID != bootID {
		return nil, ErrRebooted
	}
	if errors.Is(perr, fs.ErrNotExist) {
		return nil, ErrNone
	}
	if perr != nil {
		return nil, perr
	}
	fd, err := unix.PidfdOpen(h.pids.Supervisor, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			h.finish()
			return h, nil
		}
		return nil, fmt.Errorf("watch supervisor %d: %w", h.pids.Supervisor, err)
	}
	// The pidfd refers to whatever process has the pid now: make sure it
	// is still the supervisor before trusting it.
	if start, _, zombie, err := procStart(h.pids.Supervisor); err != nil || zombie || start != h.pids.SupervisorStart {
		unix.Close(fd)
		h.finish()
		return h, nil
	}
	go func() {
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if err == nil || !errors.Is(err, unix.EINTR) {
				break
			}
		}
		h.finish()
	}()
	return h, nil
}

// finish reads the status file once the supervisor has ended and closes
// done. A supervisor that ended without one was killed: its command's
// group is killed too, since nothing would record its end.
func (h *Handle) finish() {
	h.once.Do(func() {
		if !h.readStatus() {
			if h.groupOurs() {
				syscall.Kill(-h.pids.PGID, syscall.SIGKILL)
			}
			h.st = Status{Error: "its supervisor ended without recording the command's end (was it killed?)"}
		}
		close(h.done)
	})
}

func (h *Handle) readStatus() bool {
	var st Status
	if err := readJSON(h.dir, statusFile, &st); err != nil {
		return false
	}
	h.st = st
	return true
}

// groupOurs reports whether the command's process group leader is still
// the one the supervisor started.
func (h *Handle) groupOurs() bool {
	if h.pids.PGID <= 0 {
		return false
	}
	start, pgrp, zombie, err := procStart(h.pids.PGID)
	return err == nil && !zombie && pgrp == h.pids.PGID && start == h.pids.Start
}

// Done is closed when the command has ended and its status is read.
func (h *Handle) Done() <-chan struct{} { return h.done }

// Status is how the command ended; valid after Done is closed.
func (h *Handle) Status() Status { return h.st }

// Pids are the supervisor's and the command's ids.
func (h *Handle) Pids() Pids { return h.pids }

// Dir is the run's directory.
func (h *Handle) Dir() string { return h.dir }

// Signal sends sig to the command's process group, unless it has ended.
func (h *Handle) Signal(sig syscall.Signal) {
	select {
	case <-h.done:
		return
	default:
	}
	if h.pids.PGID > 0 {
		syscall.Kill(-h.pids.PGID, sig)
	}
}

// Remove deletes the run's directory; call it once the outcome is
// recorded.
func (h *Handle) Remove() error { return Remove(h.dir) }

// Remove deletes a run directory.
func Remove(dir string) error { return os.RemoveAll(dir) }

// maxRead bounds one OutputSince answer.
const maxRead = 1 << 20

// OutputSince returns the output from byte offset on (at most 1 MiB) and
// the offset to ask from next. Bytes no longer kept are skipped.
func (h *Handle) OutputSince(offset int64) ([]byte, int64) {
	f, err := os.Open(filepath.Join(h.dir, OutputFile))
	if err != nil {
		return nil, offset
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, offset
	}
	size := fi.Size()
	if offset >= size {
		return nil, size
	}
	from := max(offset, size-h.keep, 0)
	n := min(size-from, maxRead)
	b := make([]byte, n)
	m, _ := f.ReadAt(b, from)
	return b[:m], from + int64(m)
}

// Tail returns the kept tail of the output, prefixed by a note when some
// was dropped.
func (h *Handle) Tail() []byte {
	f, err := os.Open(filepath.Join(h.dir, OutputFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	size := fi.Size()
	from := max(size-h.keep, 0)
	b := make([]byte, size-from)
	m, _ := f.ReadAt(b, from)
	b = b[:m]
	if from == 0 {
		return b
	}
	return append([]byte(fmt.Sprintf("[almanac: %d earlier bytes dropped]\n", from)), b...)
}

// WriteMark writes text as file name in dir, atomically and durably.
func WriteMark(dir, name, text string) error {
	return writeBytes(dir, name, []byte(text), 0o600, true)
}

// Sweep lists the run directories under root: the name of each (the run
// id as the daemon chose it).
func Sweep(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// Kill stops what a run directory's supervisor left running, if the
// directory records a group that is still the command's, on this boot.
func Kill(dir, bootID string) {
	h, err := Attach(dir, bootID)
	if err != nil {
		return
	}
	select {
	case <-h.done:
	default:
		if h.groupOurs() {
			syscall.Kill(-h.pids.PGID, syscall.SIGKILL)
		}
	}
}
