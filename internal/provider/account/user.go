package account

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/provider"
)

// User is the apply provider of `user`.
type User struct {
	Files Files
	Run   provider.Runner // runs the shadow utilities (provider.RunArgv when nil)
}

// change builds one apply.Change whose sync runs argv.
func change(run provider.Runner, prop, is, should, msg string, argv ...string) apply.Change {
	return apply.Change{Property: prop, Is: is, Should: should, Sync: func(ctx context.Context, _ apply.Logger) (string, error) {
		_, err := provider.Execute(ctx, run, argv...)
		return msg, err
	}}
}

func q(s string) string { return "'" + s + "'" }

// Changes compares the account with the resource.
func (u User) Changes(_ context.Context, r *apply.Resource, _ apply.Logger) ([]apply.Change, error) {
	p := r.Params
	name := provider.Name(p, r.Title)
	cur, err := u.Files.user(name)
	if err != nil {
		return nil, err
	}
	managehome := provider.Bool(p, "managehome")
	if provider.String(p, "ensure") == "absent" {
		if cur == nil {
			return nil, nil
		}
		argv := []string{"userdel"}
		if managehome {
			argv = append(argv, "-r")
		}
		return []apply.Change{change(u.Run, "ensure", "'present'", "'absent'", "removed", append(argv, name)...)}, nil
	}
	should := map[string]string{}
	gidAttr := provider.String(p, "gid")
	for _, a := range []string{"home", "shell", "comment"} {
		if v := provider.String(p, a); v != "" {
			should[a] = v
		}
	}
	groups := provider.Strings(p, "groups")
	if cur == nil {
		argv := []string{"useradd"}
		if v := provider.String(p, "uid"); v != "" {
			argv = append(argv, "-u", v)
			if provider.Bool(p, "allowdupe") {
				argv = append(argv, "-o")
			}
		}
		if gidAttr != "" { // useradd resolves a group's name itself
			argv = append(argv, "-g", gidAttr)
		}
		for _, a := range []struct{ attr, flag string }{{"home", "-d"}, {"shell", "-s"}, {"comment", "-c"}} {
			if v, ok := should[a.attr]; ok {
				argv = append(argv, a.flag, v)
			}
		}
		if len(groups) > 0 {
			argv = append(argv, "-G", strings.Join(groups, ","))
		}
		if managehome {
			argv = append(argv, "-m")
		} else {
			argv = append(argv, "-M")
		}
		if provider.Bool(p, "system") {
			argv = append(argv, "-r")
		}
		return []apply.Change{change(u.Run, "ensure", "'absent'", "'present'", "created", append(argv, name)...)}, nil
	}
	var out []apply.Change
	if v := provider.String(p, "uid"); v != "" && v != strconv.FormatInt(cur.uid, 10) {
		argv := []string{"usermod", "-u", v}
		if provider.Bool(p, "allowdupe") {
			argv = append(argv, "-o")
		}
		out = append(out, change(u.Run, "uid", strconv.FormatInt(cur.uid, 10), v,
			fmt.Sprintf("uid changed %d to %s", cur.uid, v), append(argv, name)...))
	}
	if gidAttr != "" {
		gid, found, err := u.Files.gidOf(p["gid"])
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("Could not find group(s) %s", gidAttr)
		}
		if gid != cur.gid {
			out = append(out, change(u.Run, "gid", strconv.FormatInt(cur.gid, 10), strconv.FormatInt(gid, 10),
				fmt.Sprintf("gid changed %d to %d", cur.gid, gid), "usermod", "-g", strconv.FormatInt(gid, 10), name))
		}
	}
	for _, a := range []struct {
		attr, flag, is string
	}{{"comment", "-c", cur.comment}, {"home", "-d", cur.home}, {"shell", "-s", cur.shell}} {
		v, ok := should[a.attr]
		if !ok || v == a.is {
			continue
		}
		argv := []string{"usermod", a.flag, v}
		if a.attr == "home" && managehome {
			argv = append(argv, "-m")
		}
		out = append(out, change(u.Run, a.attr, q(a.is), q(v), fmt.Sprintf("%s changed '%s' to '%s'", a.attr, a.is, v), append(argv, name)...))
	}
	if _, set := p["groups"]; set {
		c, err := u.groupsChange(name, groups, provider.String(p, "membership") == "inclusive")
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, nil
}

// groupsChange compares the user's supplementary groups with groups: with
// membership minimum (Puppet's default) the user must be in each of them,
// with inclusive in exactly them.
func (u User) groupsChange(name string, groups []string, inclusive bool) (*apply.Change, error) {
	all, err := u.Files.groups()
	if err != nil {
		return nil, err
	}
	var cur []string
	for _, g := range all {
		if slices.Contains(g.members, name) {
			cur = append(cur, g.name)
		}
	}
	slices.Sort(cur)
	want := slices.Clone(groups)
	if !inclusive {
		want = append(want, cur...)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if slices.Equal(cur, want) {
		return nil, nil
	}
	is, should := strings.Join(cur, ","), strings.Join(want, ",")
	c := change(u.Run, "groups", q(is), q(should), fmt.Sprintf("groups changed '%s' to '%s'", is, should), "usermod", "-G", should, name)
	return &c, nil
}
