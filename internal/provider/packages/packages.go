// Package packages manages Puppet's `package` resources: the apt provider
// (state from dpkg-query, changes through apt-get) on Debian-family hosts
// and the dnf and yum providers (state from rpm) on Red Hat-family hosts,
// chosen from the host's os.family fact unless the resource names one.
// Changes and their messages follow Puppet's package type: "created",
// "removed", "purged", "ensure changed 'a' to 'b'".
package packages

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/provider"
)

// State is what a package manager says about one package.
type State struct {
	// Ensure is Puppet's current value: the installed version, "absent"
	// (removed, configuration files left) or "purged" (unknown to the
	// package database).
	Ensure string
}

// Manager is one packaging system.
type Manager interface {
	// Name is the provider's name ("apt", "dnf", "yum").
	Name() string
	Query(ctx context.Context, name string) (State, error)
	// Latest is the newest version the repositories offer.
	Latest(ctx context.Context, name string) (string, error)
	// Install installs name, at version unless it is "".
	Install(ctx context.Context, name, version string, options []string) error
	Remove(ctx context.Context, name string, options []string) error
	Purge(ctx context.Context, name string, options []string) error
}

// Runner runs the package tools; see [provider.Runner].
type Runner = provider.Runner

// Select picks the manager for a host of the given os.family, as Puppet's
// default providers do: apt on Debian, dnf on Red Hat where it is
// installed, else yum. lookPath finds a command (exec.LookPath when nil).
func Select(family string, run Runner, lookPath func(string) (string, error)) (Manager, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	switch family {
	case "Debian":
		return Named("apt", run)
	case "RedHat":
		if _, err := lookPath("dnf"); err == nil {
			return Named("dnf", run)
		}
		return Named("yum", run)
	}
	return nil, fmt.Errorf("no default package provider for os family %q (set provider => apt, dnf or yum)", family)
}

// Named returns the manager called name.
func Named(name string, run Runner) (Manager, error) {
	if run == nil {
		run = provider.RunArgv
	}
	switch name {
	case "apt":
		return apt{run: run}, nil
	case "dnf", "yum":
		return rpmFamily{tool: name, run: run}, nil
	}
	return nil, fmt.Errorf("Invalid package provider '%s'", name)
}

// Provider is the apply provider of `package`.
type Provider struct {
	// Family is the host's os.family, which picks the default manager.
	Family string
	// Run runs the package tools (Exec when nil).
	Run Runner
	// LookPath finds commands when choosing between dnf and yum.
	LookPath func(string) (string, error)
}

func (p Provider) manager(r *apply.Resource) (Manager, error) {
	if name := provider.String(r.Params, "provider"); name != "" {
		return Named(name, p.Run)
	}
	return Select(p.Family, p.Run, p.LookPath)
}

// Changes compares the package's state with its ensure.
func (p Provider) Changes(ctx context.Context, r *apply.Resource, _ apply.Logger) ([]apply.Change, error) {
	m, err := p.manager(r)
	if err != nil {
		return nil, err
	}
	name := provider.Name(r.Params, r.Title)
	should := provider.String(r.Params, "ensure")
	switch should {
	case "", "installed":
		should = "present"
	}
	st, err := m.Query(ctx, name)
	if err != nil {
		return nil, err
	}
	is := st.Ensure
	installed := is != "absent" && is != "purged"
	install := provider.Strings(r.Params, "install_options")
	uninstall := provider.Strings(r.Params, "uninstall_options")
	change := func(shouldShown, msg string, sync func(ctx context.Context) error) []apply.Change {
		return []apply.Change{{Property: "ensure", Is: quote(is), Should: quote(shouldShown),
			Sync: func(ctx context.Context, _ apply.Logger) (string, error) { return msg, sync(ctx) }}}
	}
	created := func(to string) string {
		if !installed {
			return "created"
		}
		return fmt.Sprintf("ensure changed '%s' to '%s'", is, to)
	}
	switch should {
	case "present":
		if installed {
			return nil, nil
		}
		return change("present", "created", func(ctx context.Context) error { return m.Install(ctx, name, "", install) }), nil
	case "absent":
		if !installed {
			return nil, nil
		}
		return change("absent", "removed", func(ctx context.Context) error { return m.Remove(ctx, name, uninstall) }), nil
	case "purged":
		if is == "purged" {
			return nil, nil
		}
		return change("purged", "purged", func(ctx context.Context) error { return m.Purge(ctx, name, uninstall) }), nil
	case "latest":
		latest, err := m.Latest(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("Could not get latest version: %w", err)
		}
		if installed && is == latest {
			return nil, nil
		}
		return change(latest, created(latest), func(ctx context.Context) error {
			if err := m.Install(ctx, name, "", install); err != nil {
				return fmt.Errorf("Could not update: %w", err)
			}
			return nil
		}), nil
	}
	// A version.
	if is == should {
		return nil, nil
	}
	return change(should, created(should), func(ctx context.Context) error {
		if err := m.Install(ctx, name, should, install); err != nil {
			return fmt.Errorf("Could not update: %w", err)
		}
		return nil
	}), nil
}

func quote(s string) string { return "'" + s + "'" }
