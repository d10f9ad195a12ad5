package flagfile

import (
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"syscall"
)

// CheckTrust refuses a configuration file another user could have
// written, as sshd's StrictModes does: one writable by its group or by
// others, or owned by a user other than root and the one reading it. The
// file names commands the daemon runs and the token that guards it, so
// whoever can write it can act as the daemon.
func CheckTrust(path string, fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s: writable by its group or others (mode %04o), so another user could change what the daemon runs; chmod go-w %s", path, perm, path)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if me := os.Geteuid(); st.Uid != 0 && int(st.Uid) != me {
		return fmt.Errorf("%s: owned by uid %d, neither root nor this process's user (uid %d), so that user could change what the daemon runs; chown it to root or uid %d", path, st.Uid, me, me)
	}
	return nil
}

// Exposed returns the keys of a file read by [Read] that hold secrets
// (tokens, passwords, webhook URLs, URLs with a password) when others
// may read the file, and nil when they may not or it holds none.
func (f *File) Exposed() []string {
	if f.mode&0o004 == 0 {
		return nil
	}
	var keys []string
	for _, e := range f.entries {
		name := strings.ReplaceAll(e.key, "_", "-")
		vals := []any{e.value}
		if arr, ok := e.value.([]any); ok {
			vals = arr
		}
		for _, v := range vals {
			s, ok := v.(string)
			if ok && s != "" && mask(name, s) != s {
				keys = append(keys, e.key)
				break
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// Mode is the permission bits of a file read by [Read].
func (f *File) Mode() fs.FileMode { return f.mode }
