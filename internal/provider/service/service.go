// Package service is the provider for service resources driven by commands:
// status tells whether the service runs (exit 0), start and stop change
// that, and a refresh restarts a running service (with restart, or stop then
// start).
package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/provider"
)

// Provider manages command-driven services.
type Provider struct{}

var _ apply.Refresher = Provider{}

type spec struct {
	ref, ensure                  string
	status, start, stop, restart string
	timeout                      provider.Command
}

func load(r *apply.Resource) (*spec, error) {
	s := &spec{
		ref: r.Ref(), ensure: provider.String(r.Params, "ensure"),
		status: provider.String(r.Params, "status"), start: provider.String(r.Params, "start"),
		stop: provider.String(r.Params, "stop"), restart: provider.String(r.Params, "restart"),
	}
	switch s.ensure {
	case "", "running", "stopped":
	case "true":
		s.ensure = "running"
	case "false":
		s.ensure = "stopped"
	default:
		return nil, provider.Errorf("Invalid value %q. Valid values are stopped, running", s.ensure)
	}
	if s.status == "" {
		return nil, errors.New("a service needs a status command (exit 0 while running)")
	}
	t, err := provider.Seconds(r.Params, "timeout")
	if err != nil {
		return nil, err
	}
	s.timeout.Timeout = t
	return s, nil
}

func (s *spec) exec(ctx context.Context, what, line string) error {
	if line == "" {
		return provider.Errorf("Could not %s %s: no %s command", what, s.ref, what)
	}
	c := s.timeout
	c.Line = line
	out, code, err := provider.Run(ctx, c)
	if err != nil {
		return provider.Errorf("Could not %s %s: %w", what, s.ref, err)
	}
	if code != 0 {
		return provider.Errorf("Could not %s %s: Execution of '%s' returned %d: %s", what, s.ref, line, code, strings.TrimSpace(out))
	}
	return nil
}

func (s *spec) running(ctx context.Context) (bool, error) {
	c := s.timeout
	c.Line = s.status
	_, code, err := provider.Run(ctx, c)
	if err != nil {
		return false, provider.Errorf("Could not get status of %s: %w", s.ref, err)
	}
	return code == 0, nil
}

// Changes compares the service's status with ensure.
func (Provider) Changes(ctx context.Context, r *apply.Resource, _ apply.Logger) ([]apply.Change, error) {
	s, err := load(r)
	if err != nil {
		return nil, err
	}
	if s.ensure == "" {
		return nil, nil
	}
	up, err := s.running(ctx)
	if err != nil {
		return nil, err
	}
	is := "stopped"
	if up {
		is = "running"
	}
	if is == s.ensure {
		return nil, nil
	}
	return []apply.Change{{
		Property: "ensure", Is: "'" + is + "'", Should: "'" + s.ensure + "'",
		// A service that was just started needs no restart.
		InvalidatesRefreshes: s.ensure == "running",
		Sync: func(ctx context.Context, _ apply.Logger) (string, error) {
			what, line := "start", s.start
			if s.ensure == "stopped" {
				what, line = "stop", s.stop
			}
			if err := s.exec(ctx, what, line); err != nil {
				return "", err
			}
			return fmt.Sprintf("ensure changed '%s' to '%s'", is, s.ensure), nil
		},
	}}, nil
}

// Refresh restarts the service if it is running.
func (Provider) Refresh(ctx context.Context, r *apply.Resource, _ apply.Logger) error {
	s, err := load(r)
	if err != nil {
		return err
	}
	up, err := s.running(ctx)
	if err != nil || !up {
		return err
	}
	if s.restart != "" {
		return s.exec(ctx, "restart", s.restart)
	}
	if err := s.exec(ctx, "stop", s.stop); err != nil {
		return err
	}
	return s.exec(ctx, "start", s.start)
}
