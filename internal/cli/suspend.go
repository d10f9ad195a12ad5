package cli

import (
	"context"
	"fmt"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
)

// The four one-job actions share a shape: almanac ACTION NAME.
func init() {
	register("suspend", "stop a job's future runs (active runs continue): suspend NAME", escaped(jobAction("suspend")))
	register("resume", "let a suspended job run again: resume NAME", escaped(jobAction("resume")))
	register("trigger", "start a run of a job now: trigger NAME", escaped(jobAction("trigger")))
	register("delete", "delete a job and its runs: delete NAME", escaped(jobAction("delete")))
}

func jobAction(action string) func(ctx context.Context, e *env, args []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		fs := newFlagSet(action)
		cf := addClientFlags(fs)
		pos, err := parseFlags(fs, args)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("%s: usage: almanac %s NAME", action, action)
		}
		c, err := cf.client()
		if err != nil {
			return err
		}
		name := pos[0]
		if err := checkJobName(action, name); err != nil {
			return err
		}
		msg, err := doJobAction(ctx, c, action, name)
		if err != nil {
			return apiErr(err)
		}
		fmt.Fprintln(e.stdout, msg)
		return nil
	}
}

func doJobAction(ctx context.Context, c *apiclient.Client, action, name string) (string, error) {
	switch action {
	case "suspend":
		if _, err := c.JobSuspend(ctx, name); err != nil {
			return "", err
		}
		return fmt.Sprintf("job %s suspended", name), nil
	case "resume":
		j, err := c.JobResume(ctx, name)
		if err != nil {
			return "", err
		}
		if j.Status.NextScheduleTime != nil {
			return fmt.Sprintf("job %s resumed (next run %s)", name, fmtTime(j.Status.NextScheduleTime)), nil
		}
		return fmt.Sprintf("job %s resumed", name), nil
	case "trigger":
		r, err := c.JobTrigger(ctx, name)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("run %d of job %s created", r.ID, name), nil
	default:
		if err := c.JobDelete(ctx, name); err != nil {
			return "", err
		}
		return fmt.Sprintf("job %s deleted", name), nil
	}
}
