package job

import (
	"context"
	"fmt"

	"github.com/almanac-sh/almanac/internal/store"
)

// CreateJobs creates the jobs as CreateJob creates each, in one store
// transaction: all or none. Every spec is checked first as PutJob checks
// it, by Config.Accept and Validate (the first refused one is the error
// and nothing is created); store.ErrDuplicate if any name is taken. A manifest load creates its new jobs with it.
func (c *Controller) CreateJobs(ctx context.Context, specs []store.JobSpec, src store.Source) error {
	now := c.clock.Now()
	ps := make([]store.JobCreateParams, len(specs))
	var host []store.Event
	for i := range specs {
		spec := specs[i]
		h, err := c.check(&spec, src)
		if err != nil {
			return err
		}
		host = append(host, h...)
		ps[i] = store.JobCreateParams{Spec: spec, Source: src, Now: now,
			Events: append([]store.Event{{Kind: store.EventJobCreated, Message: fmt.Sprintf("job %s created (%s)", spec.Name, src)}}, h...)}
	}
	if err := c.st.JobCreateBatch(ctx, ps); err != nil {
		return err
	}
	c.warnHost(host)
	for i := range ps {
		c.Notify(ps[i].Spec.Name)
	}
	return nil
}
