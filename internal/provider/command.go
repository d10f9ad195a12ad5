// Package provider holds what almanac's resource providers share: running a
// shell command in its own process group with a timeout, and reading
// resource parameters as Puppet does. The providers themselves live in the
// subpackages exec, file, service and notify.
package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Command describes one shell command to run.
type Command struct {
	Line    string        // run as /bin/sh -c Line (or as the shell would, see Run)
	Dir     string        // working directory ("" = inherit)
	Env     []string      // extra KEY=VALUE entries
	Path    string        // if set, PATH for the command
	Timeout time.Duration // 0 = none
}

// ErrTimeout is returned when a command outlives its timeout; its process
// group has been killed.
var ErrTimeout = errors.New("Command exceeded timeout")

// Run runs c and returns its combined output and exit status. A command that
// could not be started, or was killed, is an error.
//
// A line the shell would only split on blanks runs its program directly
// (see direct); should that program not start (a script without #!, for
// one), the line goes to /bin/sh after all, which decides what it means.
func Run(ctx context.Context, c Command) (string, int, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	var out bytes.Buffer
	cmd := c.cmd(&out, true)
	if err := cmd.Start(); err != nil {
		if cmd.Path == "/bin/sh" {
			return "", -1, err
		}
		out.Reset()
		if cmd = c.cmd(&out, false); cmd.Start() != nil {
			return "", -1, err
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return out.String(), -1, ErrTimeout
		}
		return out.String(), -1, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return out.String(), -1, err
	}
	return out.String(), 0, nil
}

// cmd is the process that runs c, writing its output to out: its program
// directly when fast and direct allows, else /bin/sh -c Line.
func (c Command) cmd(out *bytes.Buffer, fast bool) *exec.Cmd {
	var cmd *exec.Cmd
	if path, argv, ok := direct(c); fast && ok {
		cmd = &exec.Cmd{Path: path, Args: argv}
	} else {
		cmd = exec.Command("/bin/sh", "-c", c.Line)
	}
	cmd.Dir = c.Dir
	cmd.Env = os.Environ()
	if c.Path != "" {
		cmd.Env = append(cmd.Env, "PATH="+c.Path)
	}
	if cmd.Path != "/bin/sh" {
		// The shell always exports PWD; the program sees the same.
		if wd := workDir(c.Dir); wd != "" {
			cmd.Env = append(cmd.Env, "PWD="+wd)
		}
	}
	cmd.Env = append(cmd.Env, c.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// workDir is the PWD /bin/sh would export running in dir ("" for this
// process's): the inherited PWD when it names that directory, else the
// directory's physical path; "" if it cannot tell.
func workDir(dir string) string {
	here, err := os.Getwd()
	if err != nil {
		return ""
	}
	if dir == "" {
		if pwd := os.Getenv("PWD"); pwd != "" && sameFile(pwd, here) {
			return pwd
		}
		dir = here
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(here, dir)
	}
	if p, err := filepath.EvalSymlinks(dir); err == nil {
		return p
	}
	return ""
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// Lines splits command output into lines without the trailing empty one.
func Lines(out string) []string {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// String returns a parameter as a string ("" if unset).
func String(params map[string]any, name string) string {
	switch v := params[name].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// Bool returns a parameter as a boolean: true or "true".
func Bool(params map[string]any, name string) bool {
	switch v := params[name].(type) {
	case bool:
		return v
	case string:
		return v == "true"
	}
	return false
}

// Strings returns a parameter that may be a single value or an array.
func Strings(params map[string]any, name string) []string {
	switch v := params[name].(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			out = append(out, fmt.Sprint(x))
		}
		return out
	case []string:
		return v
	default:
		return []string{fmt.Sprint(v)}
	}
}

// Seconds reads a duration given in seconds (integer, float or numeric
// string); 0 if unset.
func Seconds(params map[string]any, name string) (time.Duration, error) {
	var f float64
	switch v := params[name].(type) {
	case nil:
		return 0, nil
	case int64:
		f = float64(v)
	case int:
		f = float64(v)
	case float64:
		f = v
	case string:
		var err error
		if f, err = strconv.ParseFloat(v, 64); err != nil {
			return 0, fmt.Errorf("invalid %s %q: want a number of seconds", name, v)
		}
	default:
		return 0, fmt.Errorf("invalid %s %v: want a number of seconds", name, v)
	}
	if f < 0 {
		return 0, fmt.Errorf("invalid %s %v: must not be negative", name, f)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// Errorf formats an error whose text is Puppet's message, capitalised as
// Puppet prints it ("Could not start Service[x]: ..."), so logs read the same.
func Errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }
