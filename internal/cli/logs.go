package cli

import (
	"context"
)

func init() {
	register("logs", "print a run's captured output: logs RUN (a run id, or a job name for its latest run)", runLogs)
}

func runLogs(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("logs")
	cf := addClientFlags(fs)
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
	out, _, err := c.RunLog(ctx, ids[0])
	if err != nil {
		return apiErr(err)
	}
	_, err = e.stdout.Write(out)
	return err
}
