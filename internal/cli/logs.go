package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
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
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil {
		// A job name: its most recent run that has started.
		if err := checkJobName("logs", pos[0]); err != nil {
			return usagef("logs: %q is neither a run id nor a job name", pos[0])
		}
		p, err := c.RunList(ctx, apiclient.RunFilter{Job: pos[0], States: []string{"running", "succeeded", "failed", "killed"}, Limit: 1})
		if apiclient.IsNotFound(err) {
			return fmt.Errorf("logs: job %q not found", pos[0])
		}
		if err != nil {
			return apiErr(err)
		}
		if len(p.Items) == 0 {
			return fmt.Errorf("logs: job %q has no started runs", pos[0])
		}
		id = p.Items[0].ID
	} else if id <= 0 {
		return usagef("logs: run id %d must be positive", id)
	}
	out, _, err := c.RunLog(ctx, id)
	if err != nil {
		return apiErr(err)
	}
	_, err = e.stdout.Write(out)
	return err
}
