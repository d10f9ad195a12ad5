// Package supervisor runs one command so that it outlives the daemon that
// started it. The daemon re-executes its own binary in a hidden mode
// (`almanac __supervise DIR`) in a session of its own; that process, the
// supervisor, starts the command in a process group of its own, copies its
// output into DIR's log file and, when the command ends, writes its exit
// status and end time to DIR atomically and durably. The daemon may die and
// come back: it finds the supervisor again through the files in DIR (the
// pids, start times and boot id), follows the log file, signals the group,
// and learns of the end through a pidfd on the supervisor and the status
// file. DIR holds:
//
//	spec.json       what to run (written by the daemon, mode 0600)
//	pid.json        the supervisor's and the command group's ids (written by the supervisor)
//	output.log      the command's stdout and stderr; its head is released once it passes twice the kept size
//	status.json     how the command ended (written by the supervisor, last)
//	supervisor.log  the supervisor's own errors
package supervisor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"
)

// Names of the files in a run's directory.
const (
	specFile   = "spec.json"
	pidFile    = "pid.json"
	statusFile = "status.json"
	// OutputFile is the command's output log.
	OutputFile = "output.log"
	logFile    = "supervisor.log"
)

// Mode is the hidden first argument that makes the almanac binary a
// supervisor. It is not a command: help and completion do not list it.
const Mode = "__supervise"

// maxFile bounds what is read of spec.json, pid.json and status.json.
const maxFile = 1 << 20

// Spec is what a supervisor runs.
type Spec struct {
	// Argv is the command and its arguments; Argv[0] is looked up in PATH
	// of the supervisor's environment if it has no slash.
	Argv []string `json:"argv"`
	// Env is the command's whole environment.
	Env []string `json:"env"`
	// Dir is the working directory; empty = the supervisor's.
	Dir string `json:"dir,omitempty"`
	// Credential, if set, is who the command runs as.
	Credential *Credential `json:"credential,omitempty"`
	// Keep is how much of the output's tail is kept (bytes, > 0).
	Keep int64 `json:"keep"`
	// BootID is the machine's boot id when the run started.
	BootID string `json:"boot_id"`
}

// Credential is a user and its groups.
type Credential struct {
	UID    uint32   `json:"uid"`
	GID    uint32   `json:"gid"`
	Groups []uint32 `json:"groups"`
}

// Pids identifies a live supervisor and its command's process group. The
// start times (clock ticks since boot, /proc/PID/stat field 22) tell them
// apart from later processes that reuse the ids.
type Pids struct {
	Supervisor      int       `json:"supervisor"`
	SupervisorStart int64     `json:"supervisor_start"`
	PGID            int       `json:"pgid"`
	Start           int64     `json:"start"`
	BootID          string    `json:"boot_id"`
	StartedAt       time.Time `json:"started_at"`
}

// Status is how a command ended.
type Status struct {
	// ExitCode is the exit status; nil if the command did not exit
	// normally or never started.
	ExitCode *int `json:"exit_code,omitempty"`
	// Error describes an abnormal end ("signal: killed", "start: ...").
	Error string `json:"error,omitempty"`
	// EndedAt is when the supervisor saw the command end.
	EndedAt time.Time `json:"ended_at"`
	// Output is how many bytes of output the command wrote in all.
	Output int64 `json:"output"`
}

// writeFile writes name in dir atomically: a temporary file renamed over
// name, so that a reader finds it absent or whole. With durable, the file
// and then the directory are fsync'd before it returns, so that it also
// survives a power loss. Only the status needs that: after a power loss
// the machine has rebooted, and a run without a status is lost anyway.
func writeFile(dir, name string, v any, mode os.FileMode, durable bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeBytes(dir, name, b, mode, durable)
}

// writeBytes is writeFile for bytes.
func writeBytes(dir, name string, b []byte, mode os.FileMode, durable bool) error {
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readJSON reads name in dir into v, bounded by maxFile.
func readJSON(dir, name string, v any) error {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return err
	}
	if len(b) > maxFile {
		return fmt.Errorf("%s: larger than %d bytes", name, maxFile)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// BootIDFile is where Linux tells the current boot apart from earlier ones.
const BootIDFile = "/proc/sys/kernel/random/boot_id"

// BootID reads the machine's boot id.
func BootID() (string, error) {
	b, err := os.ReadFile(BootIDFile)
	if err != nil {
		return "", fmt.Errorf("boot id: %w", err)
	}
	return string(bytes.TrimSpace(b)), nil
}

// procStart reads the start time (clock ticks since boot) and process
// group of pid, and whether it is a zombie.
func procStart(pid int) (start int64, pgrp int, zombie bool, err error) {
	st, err := ReadStat(pid)
	if err != nil {
		return 0, 0, false, err
	}
	return st.Start, st.Pgrp, st.State == 'Z' || st.State == 'X', nil
}

// self is the binary that runs Main when given Mode, set by Enable.
var self atomic.Value

// Enable declares that this program runs Main when started with Mode as
// its first argument (cmd/almanac does, before anything else) and records
// how to start it again: os.Args[0] as found on PATH, else
// os.Executable(). Programs that do not call it (tests running the daemon
// in their own process) get no supervisors.
func Enable() {
	bin, err := exec.LookPath(os.Args[0])
	if err == nil {
		bin, err = filepath.Abs(bin)
	}
	if err != nil {
		if bin, err = os.Executable(); err != nil {
			return
		}
	}
	self.Store(bin)
}

// Binary returns the binary Enable recorded, or "" if it was not called.
func Binary() string {
	s, _ := self.Load().(string)
	return s
}
