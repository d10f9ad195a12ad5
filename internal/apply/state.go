package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// DefaultStateTTL is how long a state entry survives without being checked
// again, as Puppet's statettl default.
const DefaultStateTTL = 32 * 24 * time.Hour

// State is what runs remember between them: per resource ref, when it was
// last checked (evaluated, even in noop or when it failed) and last synced
// (actually changed). Schedules match against the last-checked time.
type State struct {
	Resources map[string]StateEntry `json:"resources"`
}

// StateEntry is one resource's times. A zero time means never.
type StateEntry struct {
	Checked time.Time `json:"checked,omitzero"`
	Synced  time.Time `json:"synced,omitzero"`
}

// NewState returns an empty state.
func NewState() *State { return &State{Resources: map[string]StateEntry{}} }

// LoadState reads a state file; a missing file is an empty state.
func LoadState(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	s := NewState()
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if s.Resources == nil {
		s.Resources = map[string]StateEntry{}
	}
	return s, nil
}

// touch records that ref was checked (and, if synced, changed) at now, to the
// whole second as Puppet keeps it.
func (s *State) touch(ref string, now time.Time, synced bool) {
	now = now.Truncate(time.Second).UTC()
	e := s.Resources[ref]
	if synced {
		e.Synced = now
	} else {
		e.Checked = now
	}
	s.Resources[ref] = e
}

// Prune removes entries last checked before now-ttl; ttl 0 keeps everything.
func (s *State) Prune(now time.Time, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	cutoff := now.Add(-ttl)
	for ref, e := range s.Resources {
		if e.Checked.Before(cutoff) {
			delete(s.Resources, ref)
		}
	}
}

// Save prunes the state (see [State.Prune]) and writes it to path
// atomically: a temporary file in the same directory, synced, then renamed
// over the old one, so a crash leaves either the old or the new file.
func (s *State) Save(path string, now time.Time, ttl time.Duration) error {
	s.Prune(now, ttl)
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename.
func WriteFileAtomic(path string, data []byte, mode os.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
