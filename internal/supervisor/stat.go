package supervisor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ProcStat is what almanac reads from /proc/PID/stat.
type ProcStat struct {
	State byte  // field 3: R, S, D, Z, ...
	Pgrp  int   // field 5
	Start int64 // field 22: start time, clock ticks since boot
}

// ParseStat parses a /proc/PID/stat line. The command name (field 2) is in
// parentheses and may itself contain spaces and parentheses, so the fields
// are counted from the last ')'.
func ParseStat(b []byte) (ProcStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ProcStat{}, errors.New("stat: no command name")
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 20 {
		return ProcStat{}, fmt.Errorf("stat: %d fields after the command name, want at least 20", len(f))
	}
	// The state is one letter (R, S, D, Z, T, ...).
	if s := f[0]; len(s) != 1 || !('A' <= s[0] && s[0] <= 'Z' || 'a' <= s[0] && s[0] <= 'z') {
		return ProcStat{}, fmt.Errorf("stat: process state %q is not a letter", s)
	}
	pgrp, err := strconv.Atoi(string(f[5-3]))
	if err != nil {
		return ProcStat{}, fmt.Errorf("stat: process group: %w", err)
	}
	start, err := strconv.ParseInt(string(f[22-3]), 10, 64)
	if err != nil {
		return ProcStat{}, fmt.Errorf("stat: start time: %w", err)
	}
	return ProcStat{State: f[0][0], Pgrp: pgrp, Start: start}, nil
}

// ReadStat reads /proc/PID/stat.
func ReadStat(pid int) (ProcStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ProcStat{}, err
	}
	return ParseStat(b)
}
