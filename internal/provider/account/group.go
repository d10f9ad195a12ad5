package account

import (
	"context"
	"fmt"
	"strconv"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/provider"
)

// Group is the apply provider of `group`.
type Group struct {
	Files Files
	Run   provider.Runner // runs the shadow utilities (provider.RunArgv when nil)
}

// Changes compares the group with the resource.
func (g Group) Changes(_ context.Context, r *apply.Resource, _ apply.Logger) ([]apply.Change, error) {
	p := r.Params
	name := provider.Name(p, r.Title)
	cur, err := g.Files.group(name)
	if err != nil {
		return nil, err
	}
	gid := provider.String(p, "gid")
	if provider.String(p, "ensure") == "absent" {
		if cur == nil {
			return nil, nil
		}
		return []apply.Change{change(g.Run, "ensure", "'present'", "'absent'", "removed", "groupdel", name)}, nil
	}
	if cur == nil {
		argv := []string{"groupadd"}
		if gid != "" {
			argv = append(argv, "-g", gid)
			if provider.Bool(p, "allowdupe") {
				argv = append(argv, "-o")
			}
		}
		if provider.Bool(p, "system") {
			argv = append(argv, "-r")
		}
		return []apply.Change{change(g.Run, "ensure", "'absent'", "'present'", "created", append(argv, name)...)}, nil
	}
	if gid != "" && gid != strconv.FormatInt(cur.gid, 10) {
		argv := []string{"groupmod", "-g", gid}
		if provider.Bool(p, "allowdupe") {
			argv = append(argv, "-o")
		}
		return []apply.Change{change(g.Run, "gid", strconv.FormatInt(cur.gid, 10), gid,
			fmt.Sprintf("gid changed %d to %s", cur.gid, gid), append(argv, name)...)}, nil
	}
	return nil, nil
}
