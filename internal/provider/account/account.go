// Package account manages Puppet's `user` and `group` resources with the
// shadow utilities (useradd, usermod, userdel, groupadd, groupmod,
// groupdel), reading the current state from the passwd and group
// databases. Messages follow Puppet's: "created", "removed", "uid changed
// 1001 to 1002", "home changed '/a' to '/b'", "groups changed 'a' to 'a,b'".
package account

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Files are the databases accounts are read from.
type Files struct {
	Passwd string // default /etc/passwd
	Group  string // default /etc/group
}

func (f Files) withDefaults() Files {
	if f.Passwd == "" {
		f.Passwd = "/etc/passwd"
	}
	if f.Group == "" {
		f.Group = "/etc/group"
	}
	return f
}

// maxDatabase bounds how much of /etc/passwd or /etc/group is read.
const maxDatabase = 64 << 20

// passwdEntry is one line of /etc/passwd.
type passwdEntry struct {
	name, comment, home, shell string
	uid, gid                   int64
}

// groupEntry is one line of /etc/group.
type groupEntry struct {
	name    string
	gid     int64
	members []string
}

func readLines(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	read := 0
	for sc.Scan() {
		read += len(sc.Bytes()) + 1
		if read > maxDatabase {
			return nil, fmt.Errorf("%s: larger than %d bytes", path, maxDatabase)
		}
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Split(line, ":"))
	}
	return out, sc.Err()
}

func (f Files) user(name string) (*passwdEntry, error) {
	lines, err := readLines(f.withDefaults().Passwd)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		if len(l) >= 7 && l[0] == name {
			uid, _ := strconv.ParseInt(l[2], 10, 64)
			gid, _ := strconv.ParseInt(l[3], 10, 64)
			return &passwdEntry{name: l[0], uid: uid, gid: gid, comment: l[4], home: l[5], shell: l[6]}, nil
		}
	}
	return nil, nil
}

func (f Files) groups() ([]groupEntry, error) {
	lines, err := readLines(f.withDefaults().Group)
	if err != nil {
		return nil, err
	}
	out := make([]groupEntry, 0, len(lines))
	for _, l := range lines {
		if len(l) < 4 {
			continue
		}
		gid, _ := strconv.ParseInt(l[2], 10, 64)
		g := groupEntry{name: l[0], gid: gid}
		for _, m := range strings.Split(l[3], ",") {
			if m != "" {
				g.members = append(g.members, m)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

func (f Files) group(name string) (*groupEntry, error) {
	gs, err := f.groups()
	if err != nil {
		return nil, err
	}
	for i := range gs {
		if gs[i].name == name {
			return &gs[i], nil
		}
	}
	return nil, nil
}

// gidOf resolves a gid attribute (a number, or a group's name) as Puppet
// does; ok is false for a group that does not exist.
func (f Files) gidOf(v any) (int64, bool, error) {
	switch x := v.(type) {
	case int64:
		return x, true, nil
	case int:
		return int64(x), true, nil
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, true, nil
		}
		g, err := f.group(x)
		if err != nil || g == nil {
			return 0, false, err
		}
		return g.gid, true, nil
	}
	return 0, false, nil
}
