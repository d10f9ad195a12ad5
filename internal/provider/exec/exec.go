// Package exec is the provider for exec resources: a shell command run
// through /bin/sh -c when its guards (creates, onlyif, unless) say it is
// needed, with refreshonly and refresh as in Puppet.
package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/provider"
)

// Provider runs exec resources.
type Provider struct {
	// Clock times the pause between tries (try_sleep); nil means the real
	// clock.
	Clock clock.Clock
}

var _ apply.Refresher = Provider{}

// settings are an exec's parameters, checked.
type settings struct {
	command  string
	returns  []int
	logout   string // true, false, on_failure
	base     provider.Command
	ref      string
	params   map[string]any
	resource *apply.Resource
	tries    int64
	trySleep time.Duration
	clock    clock.Clock
}

func (p Provider) load(r *apply.Resource) (*settings, error) {
	s := &settings{ref: r.Ref(), params: r.Params, resource: r, tries: 1, clock: p.Clock}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	s.command = provider.String(r.Params, "command")
	if s.command == "" {
		s.command = r.Title
	}
	for _, v := range provider.Strings(r.Params, "returns") {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("invalid returns value %q", v)
		}
		s.returns = append(s.returns, n)
	}
	if len(s.returns) == 0 {
		s.returns = []int{0}
	}
	s.logout = provider.String(r.Params, "logoutput")
	if s.logout == "" {
		s.logout = "on_failure"
	}
	timeout, err := provider.Seconds(r.Params, "timeout")
	if err != nil {
		return nil, err
	}
	if v, ok := r.Params["tries"]; ok {
		n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if err != nil || n < 1 {
			return nil, provider.Errorf("Tries must be an integer >= 1")
		}
		s.tries = n
	}
	if s.trySleep, err = provider.Seconds(r.Params, "try_sleep"); err != nil {
		return nil, err
	}
	s.base = provider.Command{
		Dir:     provider.String(r.Params, "cwd"),
		Env:     provider.Strings(r.Params, "environment"),
		Path:    strings.Join(provider.Strings(r.Params, "path"), ":"),
		Timeout: timeout,
	}
	for _, e := range s.base.Env {
		if !strings.Contains(e, "=") {
			return nil, fmt.Errorf("invalid environment setting %q: want NAME=value", e)
		}
	}
	return s, nil
}

func (s *settings) run(ctx context.Context, line string) (string, int, error) {
	c := s.base
	c.Line = line
	return provider.Run(ctx, c)
}

// needed reports whether the guards let the command run: creates must not
// exist, onlyif commands must all succeed, unless commands must all fail.
func (s *settings) needed(ctx context.Context, log apply.Logger) (bool, error) {
	if c := provider.String(s.params, "creates"); c != "" {
		if _, err := os.Lstat(c); err == nil {
			return false, nil
		}
	}
	for _, check := range provider.Strings(s.params, "onlyif") {
		out, code, err := s.run(ctx, check)
		if err != nil {
			return false, err
		}
		logDebug(log, s.ref, out)
		if code != 0 {
			return false, nil
		}
	}
	for _, check := range provider.Strings(s.params, "unless") {
		out, code, err := s.run(ctx, check)
		if err != nil {
			return false, err
		}
		logDebug(log, s.ref, out)
		if code == 0 {
			return false, nil
		}
	}
	return true, nil
}

func logDebug(log apply.Logger, src, out string) {
	for _, l := range provider.Lines(out) {
		log.Log(apply.Debug, src, l)
	}
}

func (s *settings) shouldText() string {
	q := make([]string, len(s.returns))
	for i, n := range s.returns {
		q[i] = "'" + strconv.Itoa(n) + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// sync runs the command as the returns property does: its output is logged
// when logoutput says so, and an unexpected exit status is an error.
//
// With tries above 1 the command is run until it returns an expected
// status, at most tries times, pausing try_sleep after each failed try (the
// last one too, as Puppet does); only the last try's output is logged.
func (s *settings) sync(ctx context.Context, log apply.Logger) error {
	var out string
	var code int
	var err error
	for try := int64(1); try <= s.tries; try++ {
		if s.tries > 1 {
			log.Log(apply.Debug, s.ref+"/returns", fmt.Sprintf("Exec try %d/%d", try, s.tries))
		}
		out, code, err = s.run(ctx, s.command)
		if err != nil || contains(s.returns, code) {
			break
		}
		if s.trySleep > 0 && s.tries > 1 {
			log.Log(apply.Debug, s.ref+"/returns", fmt.Sprintf("Sleeping for %s seconds between tries", provider.String(s.params, "try_sleep")))
			if err := s.sleep(ctx); err != nil {
				return err
			}
		}
	}
	ok := err == nil && contains(s.returns, code)
	if s.logout == "true" || (s.logout == "on_failure" && !ok) {
		for _, l := range provider.Lines(out) {
			log.Log(apply.Notice, s.ref+"/returns", l)
		}
	}
	if errors.Is(err, provider.ErrTimeout) {
		return err
	}
	if err != nil {
		return provider.Errorf("Could not execute '%s': %w", s.command, err)
	}
	if !ok {
		exp := make([]string, len(s.returns))
		for i, n := range s.returns {
			exp[i] = strconv.Itoa(n)
		}
		return fmt.Errorf("'%s' returned %d instead of one of [%s]", s.command, code, strings.Join(exp, ","))
	}
	return nil
}

// sleep pauses for try_sleep on the provider's clock, or until ctx ends.
func (s *settings) sleep(ctx context.Context) error {
	t := s.clock.NewTimer(s.trySleep)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func contains(s []int, n int) bool {
	for _, x := range s {
		if x == n {
			return true
		}
	}
	return false
}

// Changes reports the returns property out of sync ('notrun') when the
// command should run.
func (p Provider) Changes(ctx context.Context, r *apply.Resource, log apply.Logger) ([]apply.Change, error) {
	s, err := p.load(r)
	if err != nil {
		return nil, err
	}
	if provider.Bool(r.Params, "refreshonly") {
		return nil, nil
	}
	need, err := s.needed(ctx, log)
	if err != nil || !need {
		return nil, err
	}
	return []apply.Change{{
		Property: "returns", Is: "'notrun'", Should: s.shouldText(),
		Sync: func(ctx context.Context, log apply.Logger) (string, error) {
			if err := s.sync(ctx, log); err != nil {
				return "", err
			}
			return "executed successfully", nil
		},
	}}, nil
}

// Refresh runs the refresh command if one is set (its result is ignored, as
// in Puppet), else the command itself, provided the guards still allow it.
func (p Provider) Refresh(ctx context.Context, r *apply.Resource, log apply.Logger) error {
	s, err := p.load(r)
	if err != nil {
		return err
	}
	need, err := s.needed(ctx, log)
	if err != nil || !need {
		return err
	}
	if cmd := provider.String(r.Params, "refresh"); cmd != "" {
		out, _, err := s.run(ctx, cmd)
		logDebug(log, s.ref, out)
		return err
	}
	return s.sync(ctx, log)
}
