package manifestjob

import (
	"fmt"
	"regexp"
	"time"

	"github.com/almanac-sh/almanac/internal/catalog"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/manifest"
	"github.com/almanac-sh/almanac/internal/puppetsched"
)

// RebootGroup is a `reboot_group` resource: a FleetLock reboot group for
// Zincati machines (see docs/fleetlock.md).
type RebootGroup struct {
	Name    string
	Max     int
	Window  string
	Secret  string
	MaxHold time.Duration
	// Pos is where the resource is declared.
	Pos manifest.Pos
}

// rebootGroupRE is FleetLock's rule for group names.
var rebootGroupRE = regexp.MustCompile(`^[a-zA-Z0-9.-]{1,128}$`)

// rebootGroups reads the catalog's reboot_group resources. A window that
// names a manifest schedule becomes one of the set's gates; another name
// is left for the daemon to find among its named windows.
func rebootGroups(cat *catalog.Catalog, set *Set, errs *manifest.ErrorList, windows job.GateFunc, opts []puppetsched.Option) {
	for _, r := range cat.Applied("reboot_group") {
		if r.Type != "reboot_group" {
			continue
		}
		g := RebootGroup{Name: r.Title, Max: 1, Pos: r.Pos}
		if n, ok := r.Params["name"].(string); ok {
			g.Name = n
		}
		if !rebootGroupRE.MatchString(g.Name) {
			errs.Add(r.Pos, "%s: the group name %q must match ^[a-zA-Z0-9.-]+$, as FleetLock clients send it", r.Ref(), g.Name)
			continue
		}
		if n, ok := r.Params["max_holders"].(int64); ok {
			if n < 1 || n > 10000 {
				errs.Add(r.Pos, "%s: max_holders must be between 1 and 10000, not %d", r.Ref(), n)
				continue
			}
			g.Max = int(n)
		}
		g.Secret, _ = r.Params["secret"].(string)
		if g.Secret != "" && len(g.Secret) < 8 {
			errs.Add(r.Pos, "%s: the secret must be at least 8 characters", r.Ref())
			continue
		}
		if s, ok := r.Params["max_hold"].(string); ok {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				errs.Add(r.Pos, "%s: max_hold %q: expected a duration such as '2h'", r.Ref(), s)
				continue
			}
			g.MaxHold = d
		}
		if w, ok := r.Params["window"].(string); ok && w != "" {
			g.Window = w
			if _, done := set.Gates[w]; !done {
				if gt, err := gate(cat, w, windows, opts); err == nil {
					set.Gates[w] = gt
				}
			}
		}
		set.RebootGroups = append(set.RebootGroups, g)
	}
}

// UnknownWindows returns a warning, at its position, for each reboot group
// whose window is neither one of the set's schedules nor a name known
// reports true for (the daemon's --windows; nil knows none). Such a group
// grants no slot until the window exists.
func (s *Set) UnknownWindows(known func(name string) bool) []string {
	var out []string
	for _, g := range s.RebootGroups {
		if g.Window == "" {
			continue
		}
		if _, ok := s.Gates[g.Window]; ok || (known != nil && known(g.Window)) {
			continue
		}
		out = append(out, fmt.Sprintf("%s: reboot_group[%s]: window %q is no schedule in the manifests and no --windows window; the group grants no slot until it exists",
			g.Pos, g.Name, g.Window))
	}
	return out
}
