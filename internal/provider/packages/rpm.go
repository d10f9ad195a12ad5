package packages

import (
	"context"
	"fmt"
	"strings"

	"github.com/almanac-sh/almanac/internal/provider"
)

// rpmFamily is Puppet's dnf and yum providers: rpm reads the state, the
// tool changes it. rpm keeps no configuration of removed packages, so
// purged is the same as absent.
type rpmFamily struct {
	tool string
	run  Runner
}

func (r rpmFamily) Name() string { return r.tool }

// rpmFormat prints the version and release, as Puppet's ensure shows them.
const rpmFormat = "%{NAME} %{VERSION}-%{RELEASE}\n"

func (r rpmFamily) Query(ctx context.Context, name string) (State, error) {
	out, code, err := r.run(ctx, []string{"rpm", "-q", "--nosignature", "--nodigest", "--qf", rpmFormat, name})
	if err != nil {
		return State{}, fmt.Errorf("Could not execute rpm: %w", err)
	}
	if code != 0 {
		return State{Ensure: "purged"}, nil
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			return State{Ensure: f[1]}, nil
		}
	}
	return State{Ensure: "purged"}, nil
}

func (r rpmFamily) Latest(ctx context.Context, name string) (string, error) {
	out, err := provider.Execute(ctx, r.run, r.tool, "-q", "repoquery", "--latest-limit", "1", "--qf", "%{VERSION}-%{RELEASE}", name)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(out)
	if v == "" {
		return "", fmt.Errorf("no version of %s in the repositories", name)
	}
	return v, nil
}

func (r rpmFamily) Install(ctx context.Context, name, version string, options []string) error {
	target := name
	if version != "" {
		target += "-" + version
	}
	argv := append([]string{r.tool, "-d", "0", "-e", "0", "-y"}, options...)
	_, err := provider.Execute(ctx, r.run, append(argv, "install", target)...)
	return err
}

func (r rpmFamily) Remove(ctx context.Context, name string, options []string) error {
	argv := append([]string{r.tool, "-d", "0", "-e", "0", "-y"}, options...)
	_, err := provider.Execute(ctx, r.run, append(argv, "remove", name)...)
	return err
}

func (r rpmFamily) Purge(ctx context.Context, name string, options []string) error {
	return r.Remove(ctx, name, options)
}
