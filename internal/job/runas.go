package job

import (
	"fmt"
	"os"
	"os/user"
	"strings"
	"syscall"

	"github.com/almanac-sh/almanac/internal/posixid"
)

// identity is who a run_as job's command runs as.
type identity struct {
	uid, gid uint32
	groups   []uint32
	name     string
	home     string
}

// lookupRunAs resolves run_as ("user" or "user:group") on this machine and
// checks that the daemon may switch to it: only root may run a command as
// another user.
func lookupRunAs(runAs string) (*identity, error) {
	// Checked again here, not only when the job was saved: a job stored
	// by an older release may hold an id that would wrap to root.
	if err := posixid.CheckRunAs(runAs); err != nil {
		return nil, err
	}
	name, group, hasGroup := strings.Cut(runAs, ":")
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return nil, fmt.Errorf("no user %q on this machine", name)
		}
	}
	uid, err1 := posixid.Parse(u.Uid)
	gid, err2 := posixid.Parse(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("user %q has ids %s:%s, which are not numbers", name, u.Uid, u.Gid)
	}
	id := &identity{uid: uint32(uid), gid: uint32(gid), name: u.Username, home: u.HomeDir}
	if hasGroup {
		g, err := user.LookupGroup(group)
		if err != nil {
			if g, err = user.LookupGroupId(group); err != nil {
				return nil, fmt.Errorf("no group %q on this machine", group)
			}
		}
		n, err := posixid.Parse(g.Gid)
		if err != nil {
			return nil, fmt.Errorf("group %q has id %s, which is not a number", group, g.Gid)
		}
		id.gid = uint32(n)
	} else if ids, err := u.GroupIds(); err == nil {
		for _, s := range ids {
			if n, err := posixid.Parse(s); err == nil {
				id.groups = append(id.groups, uint32(n))
			}
		}
	}
	if me := os.Geteuid(); me != 0 && uint32(me) != id.uid {
		return nil, fmt.Errorf("the daemon runs as uid %d, not root, so it cannot run commands as %s", me, runAs)
	}
	return id, nil
}

// CheckRunAs reports why a command could not run as runAs on this machine
// (no such user or group, or a daemon that is not root), nil if it can.
// `validate` warns with it; the daemon accepts a manifest job that fails
// it, records a job.unrunnable event and fails its runs.
func CheckRunAs(runAs string) error {
	_, err := lookupRunAs(runAs)
	return err
}

// credential is the credential a command running as id is started with:
// nil unless the daemon is root, since only root switches users and a
// daemon running as the job's own user (lookupRunAs allows nothing else)
// keeps its identity. The groups are always set, to the user's and no
// others, so none of root's leak.
func (id *identity) credential() *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	return &syscall.Credential{Uid: id.uid, Gid: id.gid, Groups: append([]uint32{}, id.groups...)}
}

// environ adds HOME, USER and LOGNAME as cron sets them.
func (id *identity) environ(env []string) []string {
	return append(env, "HOME="+id.home, "USER="+id.name, "LOGNAME="+id.name)
}
