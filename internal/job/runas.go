package job

import (
	"fmt"
	"os"
	"os/user"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// runAsRE is the syntax of run_as: a user, optionally a group, each a name
// or a numeric id.
var runAsRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,31})?$`)

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
	name, group, hasGroup := strings.Cut(runAs, ":")
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return nil, fmt.Errorf("no user %q on this machine", name)
		}
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
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
		n, err := strconv.ParseUint(g.Gid, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("group %q has id %s, which is not a number", group, g.Gid)
		}
		id.gid = uint32(n)
	} else if ids, err := u.GroupIds(); err == nil {
		for _, s := range ids {
			if n, err := strconv.ParseUint(s, 10, 32); err == nil {
				id.groups = append(id.groups, uint32(n))
			}
		}
	}
	if me := os.Geteuid(); me != 0 && uint32(me) != id.uid {
		return nil, fmt.Errorf("the daemon runs as uid %d, not root, so it cannot run commands as %s", me, runAs)
	}
	return id, nil
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
