package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// CommandSource is a Source backed by external commands, so any fleet with a
// command-line tool (a cloud CLI, virsh, a script) can be scheduled.
//
// List runs the list command, which must print a JSON array of resources:
//
//	[{"id":"i-0abc","name":"web-1","state":"running",
//	  "tags":{"almanac-schedule-start":"mon0900"},"supports_hibernation":false}]
//
// Start, Stop and Hibernate run their command with the resource id appended
// as the last argument. When no hibernate command is configured, the stop
// command is run with "--hibernate" before the id. Commands run directly,
// never through a shell, so tag values and ids are never interpreted.
type CommandSource struct {
	ListCmd      []string
	StartCmd     []string
	StopCmd      []string
	HibernateCmd []string // optional
	// Timeout bounds each command run (default 2 minutes).
	Timeout time.Duration
	// Env is added to each command's environment (KEY=VALUE).
	Env []string
}

// maxCommandOutput bounds how much of a command's output is kept.
const maxCommandOutput = 64 << 20

// List runs the list command and parses its output.
func (c *CommandSource) List(ctx context.Context) ([]Resource, error) {
	out, err := c.run(ctx, c.ListCmd)
	if err != nil {
		return nil, fmt.Errorf("inventory command: %w", err)
	}
	var rs []Resource
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&rs); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("inventory command: output is not JSON at byte %d: %w", se.Offset, err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("inventory command: output at byte %d: field %q: want %s, got %s", te.Offset, te.Field, te.Type, te.Value)
		}
		return nil, fmt.Errorf("inventory command: output is not a JSON array of resources: %w", err)
	}
	if dec.More() {
		return nil, errors.New("inventory command: output has data after the JSON array")
	}
	if err := checkResources(rs); err != nil {
		return nil, fmt.Errorf("inventory command: %w", err)
	}
	for i := range rs {
		if rs[i].Name == "" {
			rs[i].Name = rs[i].ID
		}
	}
	return rs, nil
}

// Start runs the start command with the id.
func (c *CommandSource) Start(ctx context.Context, id string) error {
	return c.act(ctx, "start", c.StartCmd, id)
}

// Stop runs the stop command with the id.
func (c *CommandSource) Stop(ctx context.Context, id string) error {
	return c.act(ctx, "stop", c.StopCmd, id)
}

// Hibernate runs the hibernate command, or the stop command with
// "--hibernate", with the id.
func (c *CommandSource) Hibernate(ctx context.Context, id string) error {
	if len(c.HibernateCmd) > 0 {
		return c.act(ctx, "hibernate", c.HibernateCmd, id)
	}
	if len(c.StopCmd) == 0 {
		return c.act(ctx, "hibernate", nil, id)
	}
	argv := append(append([]string{}, c.StopCmd...), "--hibernate")
	return c.act(ctx, "hibernate", argv, id)
}

func (c *CommandSource) act(ctx context.Context, what string, argv []string, id string) error {
	if len(argv) == 0 {
		return fmt.Errorf("%s %s: no %s command configured", what, id, what)
	}
	full := append(append([]string{}, argv...), id)
	if _, err := c.run(ctx, full); err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	return nil
}

// run runs argv and returns its standard output; a failure carries the first
// line of standard error.
func (c *CommandSource) run(ctx context.Context, argv []string) ([]byte, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command configured")
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(cmd.Environ(), c.Env...)
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = maxCommandOutput, 4096
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s: timed out after %s", argv[0], timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return nil, fmt.Errorf("%s: %w: %s", argv[0], err, msg)
		}
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	if stdout.truncated {
		return nil, fmt.Errorf("%s: output larger than %d bytes", argv[0], stdout.max)
	}
	return stdout.Bytes(), nil
}

// limitedBuffer keeps at most max bytes and notes whether more arrived.
type limitedBuffer struct {
	bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.Len(); room < len(p) {
		b.truncated = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return n, nil
	}
	b.Buffer.Write(p)
	return n, nil
}
