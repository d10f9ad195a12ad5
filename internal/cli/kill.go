package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

func init() {
	register("kill", "stop a run: kill RUN (a run id), or kill JOB (every active run of the job)", runKill)
}

// runKill stops one run, or every pending and running run of a job: the
// daemon sends SIGTERM to the run's process group, SIGKILL after the grace
// period, and records the run as killed.
func runKill(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("kill")
	cf := addClientFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("kill: usage: almanac kill RUN|JOB (a run id, or a job name for all its active runs)")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	var ids []int64
	if id, err := strconv.ParseInt(pos[0], 10, 64); err == nil {
		if id <= 0 {
			return usagef("kill: run id %d must be positive", id)
		}
		ids = []int64{id}
	} else {
		if err := checkJobName("kill", pos[0]); err != nil {
			return usagef("kill: %q is neither a run id nor a job name", pos[0])
		}
		p, err := c.RunList(ctx, apiclient.RunFilter{Job: pos[0], States: []string{"pending", "running"}, Limit: 1000})
		if apiclient.IsNotFound(err) {
			return fmt.Errorf("kill: job %q not found", pos[0])
		}
		if err != nil {
			return apiErr(err)
		}
		if len(p.Items) == 0 {
			return fmt.Errorf("kill: job %q has no active runs", pos[0])
		}
		for _, r := range p.Items {
			ids = append(ids, r.ID)
		}
	}
	for _, id := range ids {
		r, err := c.RunKill(ctx, id)
		if err != nil {
			return apiErr(err)
		}
		fmt.Fprintf(e.stdout, "run %d of %s: kill requested (it was %s)\n", id, r.Job, r.State)
	}
	return nil
}
