package fleet

import (
	"context"
	"sync"
)

// BatchSource is a Source that acts on many resources with one request, as
// cloud APIs do (one StopInstances call for a thousand machines). When the
// scheduler's source implements it, every attempt due at one instant with
// the same action goes to Act together, instead of one Start, Stop or
// Hibernate call per resource; retries due together are batched the same
// way. Each resource still succeeds or fails on its own: a failure goes to
// that resource's retry and notification path only.
type BatchSource interface {
	Source
	// Act performs action a on every id and returns the error of each id it
	// failed for; an id absent from the map succeeded. Act must answer for
	// each id itself: a request that failed as a whole is split or retried
	// one by one to find out which ids it failed for.
	Act(ctx context.Context, a Action, ids []string) map[string]error
}

// runBatch runs one attempt of each job through src: one Act call per
// action, the actions in parallel, each bounded by the action timeout.
func (s *Scheduler) runBatch(ctx context.Context, src BatchSource, jobs []*job) {
	groups := map[Action][]*job{}
	var order []Action
	for _, j := range jobs {
		if _, ok := groups[j.p.action]; !ok {
			order = append(order, j.p.action)
		}
		groups[j.p.action] = append(groups[j.p.action], j)
	}
	var wg sync.WaitGroup
	for _, a := range order {
		wg.Add(1)
		go func(a Action, js []*job) {
			defer wg.Done()
			ids := make([]string, len(js))
			for i, j := range js {
				ids[i] = j.t.obs.Resource.ID
			}
			actx, cancel := context.WithTimeout(ctx, s.cfg.ActionTimeout)
			defer cancel()
			errs := src.Act(actx, a, ids)
			for _, j := range js {
				j.err = errs[j.t.obs.Resource.ID]
			}
		}(a, groups[a])
	}
	wg.Wait()
}
