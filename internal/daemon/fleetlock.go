package daemon

import (
	"context"
	"flag"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleetlock"
)

// rebootFlags are serve's FleetLock settings.
type rebootFlags struct {
	groups  listFlag // NAME=MAX[@WINDOW]
	secrets listFlag // NAME=SECRET
	allow   listFlag // CIDR
	maxHold time.Duration

	parsed  []fleetlock.Group
	allowed []netip.Prefix
}

func addRebootFlags(fs *flag.FlagSet, f *rebootFlags) {
	fs.Var(&f.groups, "reboot-group", "a FleetLock reboot group for Zincati: NAME=MAX[@WINDOW], at most MAX members rebooting at once, only inside WINDOW (a --windows name or a manifest schedule) when given (repeatable)")
	fs.Var(&f.secrets, "fleetlock-secret", "NAME=SECRET: members of reboot group NAME authenticate with the base URL http://HOST/fleetlock/SECRET/ (the trailing slash included) (repeatable)")
	fs.Var(&f.allow, "fleetlock-allow", "a network (CIDR) whose members may use the base URL http://HOST/fleetlock/ (the trailing slash included) without a secret (repeatable)")
	fs.DurationVar(&f.maxHold, "reboot-max-hold", 2*time.Hour, "report a reboot slot held longer than this (it is never broken)")
}

// check parses the flags; the windows are checked when the daemon knows them.
func (f *rebootFlags) check() error {
	secrets := map[string]string{}
	for _, s := range f.secrets {
		name, secret, ok := strings.Cut(s, "=")
		if !ok || name == "" || len(secret) < 8 || strings.ContainsAny(secret, "/?#% ") {
			return usagef("serve: --fleetlock-secret %q: want NAME=SECRET, the secret at least 8 characters without / ? # %% or spaces", s)
		}
		secrets[name] = secret
	}
	seen := map[string]bool{}
	for _, g := range f.groups {
		name, rest, ok := strings.Cut(g, "=")
		max, window, hasWindow := strings.Cut(rest, "@")
		n, err := strconv.Atoi(max)
		if !ok || err != nil || n < 1 || n > 10000 {
			return usagef("serve: --reboot-group %q: want NAME=MAX[@WINDOW] with MAX from 1 to 10000", g)
		}
		if !fleetlock.ValidGroup(name) {
			return usagef("serve: --reboot-group %q: the name %q must be letters, digits, . and - (at most 128), as FleetLock clients send it", g, name)
		}
		if hasWindow && !validWindowRef(window) {
			return usagef("serve: --reboot-group %q: after @ comes the name of a --windows window or a manifest schedule, not %q", g, window)
		}
		if seen[name] {
			return usagef("serve: --reboot-group %s is given twice", name)
		}
		seen[name] = true
		f.parsed = append(f.parsed, fleetlock.Group{Name: name, Max: n, Window: window, Secret: secrets[name], MaxHold: f.maxHold})
	}
	for name := range secrets {
		if !seen[name] {
			return usagef("serve: --fleetlock-secret names %s, which is no --reboot-group", name)
		}
	}
	for _, a := range f.allow {
		p, err := netip.ParsePrefix(a)
		if err != nil {
			if addr, aerr := netip.ParseAddr(a); aerr == nil {
				p = netip.PrefixFrom(addr, addr.BitLen())
			} else {
				return usagef("serve: --fleetlock-allow %q is not a network like 10.0.0.0/8 or an address", a)
			}
		}
		f.allowed = append(f.allowed, p.Masked())
	}
	if f.maxHold <= 0 {
		return usagef("serve: --reboot-max-hold %s must be positive", f.maxHold)
	}
	return nil
}

// validWindowRef reports whether name can name a window or a manifest
// schedule: printable, without spaces, at most 255 bytes.
func validWindowRef(name string) bool {
	if name == "" || len(name) > 255 {
		return false
	}
	for _, r := range name {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// fleetLockBase is the base URL to give Zincati, with the trailing slash
// without which its client drops the last path segment.
func fleetLockBase(public string) string {
	return strings.TrimSuffix(public, "/") + "/fleetlock/"
}

// newFleetLock builds the FleetLock server over the daemon's store and
// windows: named windows first, then the manifests' schedules.
func newFleetLock(o Config, gates *gateRegistry, st fleetlock.Store, manifests *manifestJobs, alert func(ctx context.Context, subject, body string), clk clock.Clock, log *slog.Logger) (*fleetlock.Server, error) {
	lookup := func(name string) (fleetlock.Window, bool) { return gates.Lookup(name) }
	for _, g := range o.reboot.parsed {
		if g.Window == "" {
			continue
		}
		if _, ok := lookup(g.Window); !ok {
			return nil, usagef("serve: --reboot-group %s: no window or manifest schedule is named %q", g.Name, g.Window)
		}
	}
	groups := func() []fleetlock.Group {
		// The flags' groups, then the manifests' (a flag wins a name).
		out := append([]fleetlock.Group(nil), o.reboot.parsed...)
		have := map[string]bool{}
		for _, g := range out {
			have[g.Name] = true
		}
		for _, g := range manifests.rebootGroups() {
			if !have[g.Name] {
				out = append(out, fleetlock.Group{Name: g.Name, Max: g.Max, Window: g.Window, Secret: g.Secret, MaxHold: g.MaxHold})
			}
		}
		return out
	}
	return fleetlock.New(fleetlock.Config{
		Groups:  groups,
		Windows: lookup,
		Store:   st,
		Clock:   clk,
		Logger:  log.With("component", "fleetlock"),
		Allow:   o.reboot.allowed,
		MaxHold: o.reboot.maxHold,
		Alert:   alert,
	}), nil
}

// rebootGroupsAPI converts the FleetLock server's status for the API and
// the web UI.
func rebootGroupsAPI(locks *fleetlock.Server) func(ctx context.Context) ([]apitype.RebootGroup, error) {
	return func(ctx context.Context) ([]apitype.RebootGroup, error) {
		st, err := locks.Status(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]apitype.RebootGroup, 0, len(st))
		for _, g := range st {
			v := apitype.RebootGroup{Name: g.Name, Max: g.Max, Window: g.Window, Open: g.Open, Auth: "allow-list", Holders: []apitype.RebootHolder{}}
			if g.Secret != "" {
				v.Auth = "secret"
			}
			if !g.NextOpen.IsZero() {
				t := g.NextOpen
				v.NextOpen = &t
			}
			for _, h := range g.Holders {
				v.Holders = append(v.Holders, apitype.RebootHolder{ID: h.ID, Since: h.Since, Overdue: h.Overdue})
			}
			out = append(out, v)
		}
		return out, nil
	}
}

// has reports whether a named window is called name.
func (n *namedWindows) has(name string) bool {
	if n == nil {
		return false
	}
	for _, w := range n.list {
		if w.name == name {
			return true
		}
	}
	return false
}
