package cli

import (
	"context"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

func init() {
	register("logs", "print a run's captured output: logs RUN (a run id, or a job name for its latest run)", runLogs)
}

func runLogs(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("logs")
	cf := addClientFlags(fs)
	follow := fs.Bool("f", false, "follow: print the output as the run writes it, until the run ends")
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
	ids, err := runsOf(ctx, c, "logs", pos[0], runFilter{states: []string{"running", "succeeded", "failed", "killed"}, limit: 1, none: "no started runs"})
	if err != nil {
		return err
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
		case "succeeded", "failed", "killed", "missed":
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
