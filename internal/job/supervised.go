package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/supervisor"
)

// Supervised runs each command under a supervisor: the almanac binary
// re-executed in its hidden supervisor mode, in a session of its own, so
// that the command survives the daemon (a crash, kill -9, an upgrade's
// restart). Each run has a directory, Dir/RUN-ID, holding what to run, the
// supervisor's and the command group's ids, the output log and, once the
// command ended, its exit status and end time (package supervisor). A
// restarted daemon attaches to the directories of the runs its previous
// life left running.
type Supervised struct {
	// Binary is the almanac binary (os.Executable()).
	Binary string
	// Dir holds the run directories.
	Dir string
	// MaxOutput bounds the output kept (default DefaultMaxOutput).
	MaxOutput int
	// Environ is the base environment (default os.Environ()).
	Environ []string
	// BootID returns the machine's boot id (default supervisor.BootID):
	// a run started under another boot id was lost with its machine.
	BootID func() (string, error)
}

func (s *Supervised) bootID() (string, error) {
	if s.BootID != nil {
		return s.BootID()
	}
	return supervisor.BootID()
}

func (s *Supervised) runDir(id int64) string {
	return filepath.Join(s.Dir, strconv.FormatInt(id, 10))
}

// Start implements Executor.
func (s *Supervised) Start(_ context.Context, run store.Run, spec store.JobSpec) (Process, error) {
	c, err := prepare(run, spec, s.Environ)
	if err != nil {
		return nil, err
	}
	boot, err := s.bootID()
	if err != nil {
		return nil, err
	}
	keep := s.MaxOutput
	if keep <= 0 {
		keep = DefaultMaxOutput
	}
	sp := supervisor.Spec{Argv: c.argv, Env: c.env, Dir: c.dir, Keep: int64(keep), BootID: boot}
	if c.id != nil {
		if cr := c.id.credential(); cr != nil {
			sp.Credential = &supervisor.Credential{UID: cr.Uid, GID: cr.Gid, Groups: cr.Groups}
		}
	}
	dir := s.runDir(run.ID)
	h, err := supervisor.Start(s.Binary, dir, sp)
	if err != nil {
		// Nothing runs: the directory only explains why.
		supervisor.Remove(dir)
		return nil, err
	}
	return &supervised{h: h}, nil
}

// Attach implements Executor.
func (s *Supervised) Attach(_ context.Context, run store.Run) (Process, error) {
	boot, err := s.bootID()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotAttachable, err)
	}
	h, err := supervisor.Attach(s.runDir(run.ID), boot)
	switch {
	case errors.Is(err, supervisor.ErrRebooted):
		supervisor.Remove(s.runDir(run.ID))
		return nil, fmt.Errorf("%w: %v", ErrLost, err)
	case errors.Is(err, supervisor.ErrNone):
		// Nothing on disk for the run: if the machine rebooted since the
		// previous life of the daemon, a power loss may have taken the
		// directory, and the command with it.
		if last, _ := os.ReadFile(filepath.Join(s.Dir, bootMark)); len(last) > 0 && string(last) != boot {
			return nil, fmt.Errorf("%w: %v", ErrLost, supervisor.ErrRebooted)
		}
		return nil, ErrNotAttachable
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrNotAttachable, err)
	}
	return &supervised{h: h}, nil
}

// bootMark is the file under Dir holding the boot id of the daemon's last
// start.
const bootMark = "boot_id"

// Sweep implements sweeper: it stops and removes what run directories
// other than keep's left behind (runs recorded finished or lost while
// their supervisor lived on, directories of finished runs whose removal
// was cut short), and records the boot id this life started under.
func (s *Supervised) Sweep(keep map[int64]bool) {
	boot, _ := s.bootID()
	if boot != "" && os.MkdirAll(s.Dir, 0o700) == nil {
		supervisor.WriteMark(s.Dir, bootMark, boot)
	}
	names, err := supervisor.Sweep(s.Dir)
	if err != nil {
		return
	}
	for _, name := range names {
		id, err := strconv.ParseInt(name, 10, 64)
		if err != nil || keep[id] {
			continue
		}
		dir := filepath.Join(s.Dir, name)
		supervisor.Kill(dir, boot)
		supervisor.Remove(dir)
	}
}

// sweeper is an Executor that keeps per-run state the controller asks it
// to clear, once the runs to keep are known, at start-up.
type sweeper interface {
	Sweep(keep map[int64]bool)
}

// supervised is a Process run by a supervisor.
type supervised struct {
	h *supervisor.Handle
}

func (p *supervised) Done() <-chan struct{} { return p.h.Done() }
func (p *supervised) Terminate()            { p.h.Signal(syscall.SIGTERM) }
func (p *supervised) Kill()                 { p.h.Signal(syscall.SIGKILL) }

// Release implements durable: the outcome is recorded, the run's
// directory can go.
func (p *supervised) Release() { p.h.Remove() }

// OutputSince implements LiveOutput: the output log, followed on disk.
func (p *supervised) OutputSince(offset int64) ([]byte, int64) { return p.h.OutputSince(offset) }

// Group implements grouped.
func (p *supervised) Group() store.RunProcess {
	ids := p.h.Pids()
	return store.RunProcess{PGID: ids.PGID, Start: ids.Start}
}

func (p *supervised) Result() Result {
	st := p.h.Status()
	res := Result{ExitCode: st.ExitCode, Output: p.h.Tail(), Ended: st.EndedAt}
	if st.Error != "" {
		res.Err = errors.New(st.Error)
	}
	return res
}
