package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

func init() {
	register("kill", "stop a run: kill RUN (a run id), or kill JOB (every active run of the job)", escaped(runKill))
}

// runFilter selects, for a job name given where a run is expected, which
// of the job's runs are meant (newest first), and what to say when it has
// none.
type runFilter struct {
	states []string
	limit  int
	none   string
}

// runsOf resolves a RUN|JOB argument of command cmd: a positive run id is
// that run; a job name is the job's runs that f selects.
func runsOf(ctx context.Context, c *apiclient.Client, cmd, arg string, f runFilter) ([]int64, error) {
	if id, err := strconv.ParseInt(arg, 10, 64); err == nil {
		if id <= 0 {
			return nil, usagef("%s: run id %d must be positive", cmd, id)
		}
		return []int64{id}, nil
	}
	if err := checkJobName(cmd, arg); err != nil {
		return nil, usagef("%s: %q is neither a run id nor a job name", cmd, arg)
	}
	p, err := c.RunList(ctx, apiclient.RunFilter{Job: arg, States: f.states, Limit: f.limit})
	if apiclient.IsNotFound(err) {
		return nil, fmt.Errorf("%s: job %q not found", cmd, arg)
	}
	if err != nil {
		return nil, apiErr(err)
	}
	if len(p.Items) == 0 {
		return nil, fmt.Errorf("%s: job %q has %s", cmd, arg, f.none)
	}
	ids := make([]int64, len(p.Items))
	for i, r := range p.Items {
		ids[i] = r.ID
	}
	return ids, nil
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
	ids, err := runsOf(ctx, c, "kill", pos[0], runFilter{states: []string{"pending", "running"}, limit: 1000, none: "no active runs"})
	if err != nil {
		return err
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
