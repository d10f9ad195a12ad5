package packages

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/almanac-sh/almanac/internal/provider"
)

// apt is Puppet's apt provider: dpkg-query reads the state, apt-get
// changes it.
type apt struct{ run Runner }

func (apt) Name() string { return "apt" }

// dpkgFormat is the dpkg-query format Puppet's dpkg provider reads.
const dpkgFormat = "${Status} ${Package} ${Version}\n"

// dpkgLine is desired, error, status, name and version.
var dpkgLine = regexp.MustCompile(`^(\S+) +(\S+) +(\S+) (\S+) (\S*)$`)

func (a apt) Query(ctx context.Context, name string) (State, error) {
	out, code, err := a.run(ctx, []string{"dpkg-query", "-W", "--showformat", dpkgFormat, name})
	if err != nil {
		return State{}, fmt.Errorf("Could not execute dpkg-query: %w", err)
	}
	if code != 0 {
		// dpkg-query knows nothing of the package: Puppet calls it purged.
		return State{Ensure: "purged"}, nil
	}
	return parseDpkg(out, name), nil
}

// parseDpkg reads dpkg-query's line for name as Puppet's dpkg provider
// does: an installed package is at its version, one whose configuration
// files are left (or half installed) is absent, one dpkg no longer
// installs is purged.
func parseDpkg(out, name string) State {
	for _, line := range strings.Split(out, "\n") {
		m := dpkgLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || m[4] != name && !strings.HasPrefix(m[4], name+":") {
			continue
		}
		switch m[3] {
		case "installed":
			return State{Ensure: m[5]}
		case "not-installed":
			return State{Ensure: "purged"}
		default: // config-files, half-installed, unpacked, half-configured...
			return State{Ensure: "absent"}
		}
	}
	return State{Ensure: "purged"}
}

var candidate = regexp.MustCompile(`Candidate:\s+(\S+)\s`)

func (a apt) Latest(ctx context.Context, name string) (string, error) {
	out, err := provider.Execute(ctx, a.run, "apt-cache", "policy", name)
	if err != nil {
		return "", err
	}
	m := candidate.FindStringSubmatch(out)
	if m == nil || m[1] == "(none)" {
		return "", fmt.Errorf("no candidate version of %s in the package lists (run apt-get update?)", name)
	}
	return m[1], nil
}

func (a apt) Install(ctx context.Context, name, version string, options []string) error {
	argv := []string{"apt-get", "-q", "-y"}
	target := name
	if version != "" {
		target += "=" + version
		argv = append(argv, "--allow-downgrades")
	}
	argv = append(argv, options...)
	_, err := provider.Execute(ctx, a.run, append(argv, "install", target)...)
	return err
}

func (a apt) Remove(ctx context.Context, name string, options []string) error {
	argv := append([]string{"apt-get", "-y", "-q"}, options...)
	_, err := provider.Execute(ctx, a.run, append(argv, "remove", name)...)
	return err
}

func (a apt) Purge(ctx context.Context, name string, options []string) error {
	argv := append([]string{"apt-get", "-y", "-q"}, options...)
	if _, err := provider.Execute(ctx, a.run, append(argv, "remove", "--purge", name)...); err != nil {
		return err
	}
	// apt-get does not purge a package it already removed: dpkg does.
	_, err := provider.Execute(ctx, a.run, "dpkg", "--purge", name)
	return err
}
