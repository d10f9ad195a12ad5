package cli

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/almanac-sh/almanac/internal/termtext"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

func init() {
	register("logs", "print a run's captured output: logs RUN (a run id, or a job name for its latest run)", runLogs)
}

func runLogs(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("logs")
	cf := addClientFlags(fs)
	follow := fs.Bool("f", false, "follow: print the output as the run writes it, until the run ends")
	raw := fs.Bool("raw", false, "print the output as the run wrote it, control characters included, even to a terminal")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("logs: usage: almanac logs RUN (a run id, or a job name for its latest run)")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	// A job name means its most recent run that has started.
	ids, err := runsOf(ctx, c, "logs", pos[0], runFilter{states: []string{"running", "succeeded", "failed", "killed", "lost"}, limit: 1, none: "no started runs"})
	if err != nil {
		return err
	}
	if !*raw && isTerminal(e.stdout) {
		// A run's output may hold escape sequences that would drive the
		// terminal; piped or redirected, it passes unchanged.
		tw := termtext.NewWriter(e.stdout)
		defer tw.Flush()
		te := *e
		te.stdout = tw
		e = &te
	}
	if *follow {
		return followLog(ctx, e, c, ids[0])
	}
	out, _, err := c.RunLog(ctx, ids[0])
	if err != nil {
		return apiErr(err)
	}
	_, err = e.stdout.Write(out)
	return err
}

// isTerminal reports whether w is a terminal (a character device); a
// variable so tests can pretend.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// followInterval is how often `logs -f` asks for new output.
const followInterval = 500 * time.Millisecond

// followLog prints a run's output as it comes, asking the daemon for the
// bytes after those already printed, until the run has ended.
func followLog(ctx context.Context, e *env, c *apiclient.Client, id int64) error {
	clk := e.clk()
	var offset int64
	for {
		out, next, state, err := c.RunLogFrom(ctx, id, offset)
		if err != nil {
			return apiErr(err)
		}
		if _, err := e.stdout.Write(out); err != nil {
			return err
		}
		offset = max(next, offset)
		switch state {
		case "succeeded", "failed", "killed", "missed", "lost":
			return nil
		}
		t := clk.NewTimer(followInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
	}
}
