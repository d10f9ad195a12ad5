package job

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/supervisor"
)

// A run's command runs in a process group of its own, so that stopping
// the run reaches everything it started. If almanac itself is killed
// (SIGKILL, OOM killer, power to the daemon but not the machine), those
// groups keep running with nobody watching them. The executor records each
// group's id and the start time of its first process (RunSetProcess); at
// start-up the controller stops the groups its previous life left, before
// it records their runs as interrupted. A group is signalled only if its
// first process still exists and started at the recorded time: a pid the
// kernel has since given to another process is left alone.

// reapPoll is how often the controller looks whether the groups it sent
// SIGTERM have exited.
const reapPoll = 50 * time.Millisecond

// procStat, parseStat and readStat read /proc/PID/stat (package
// supervisor, which tells its own processes apart the same way).
type procStat = supervisor.ProcStat

var (
	parseStat = supervisor.ParseStat
	readStat  = supervisor.ReadStat
)

// groupLive reports whether any process of group pgid is alive (not a
// zombie waiting to be reaped).
func groupLive(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true // cannot tell: assume it is
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil && st.Pgrp == pgid && st.State != 'Z' && st.State != 'X' {
			return true
		}
	}
	return false
}

// ours reports whether group g is still the one recorded: its first
// process exists and started when recorded.
func ours(g store.RunProcess) bool {
	if g.PGID <= 0 || g.Start == 0 {
		return false
	}
	st, err := readStat(g.PGID)
	return err == nil && st.Start == g.Start && st.Pgrp == g.PGID
}

// reapOrphans stops the process groups that runs (this node's, found
// interrupted at start-up) left running: SIGTERM to each group that is
// still the run's, SIGKILL after KillGrace to those still alive. It returns
// per run a note on what was done, for the run's error.
func (c *Controller) reapOrphans(runs []store.Run) map[int64]string {
	notes := map[int64]string{}
	var live []store.Run
	for _, r := range runs {
		g := r.Process
		switch {
		case g.PGID <= 0:
		case !groupLive(g.PGID):
			notes[r.ID] = fmt.Sprintf("its process group %d had already exited", g.PGID)
		case !ours(g):
			notes[r.ID] = fmt.Sprintf("process group %d left alone: its first process is gone or is not the run's any more", g.PGID)
			c.log.Warn("not stopping a process group that may not be the run's", "run", r.ID, "pgid", g.PGID)
		default:
			c.log.Warn("stopping a command left running by a previous almanac", "run", r.ID, "job", r.Job, "pgid", g.PGID)
			syscall.Kill(-g.PGID, syscall.SIGTERM)
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return notes
	}
	grace := c.clock.NewTimer(c.cfg.KillGrace)
	defer grace.Stop()
	poll := c.clock.NewTimer(reapPoll)
	defer poll.Stop()
	for {
		still := live[:0]
		for _, r := range live {
			if groupLive(r.Process.PGID) {
				still = append(still, r)
				continue
			}
			notes[r.ID] = fmt.Sprintf("its leftover process group %d was stopped with SIGTERM", r.Process.PGID)
		}
		live = still
		if len(live) == 0 {
			return notes
		}
		select {
		case <-grace.C():
			for _, r := range live {
				syscall.Kill(-r.Process.PGID, syscall.SIGKILL)
				notes[r.ID] = fmt.Sprintf("its leftover process group %d was killed with SIGKILL %s after SIGTERM", r.Process.PGID, c.cfg.KillGrace)
			}
			return notes
		case <-poll.C():
			poll.Reset(reapPoll)
		}
	}
}
