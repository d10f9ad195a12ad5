package cluster

import (
	"context"
	"fmt"
	"sync"

	"github.com/almanac-sh/almanac/internal/store"
)

// GatedStore is the store a node's job controller writes through
// (ControllerStore makes one). It splits
// the controller's writes in two:
//
//   - Scheduling writes (the ones the controller marks with a term: new
//     scheduled runs, advancing a job, releasing, cancelling, pruning, and
//     finishing runs other nodes abandoned) are the leader's alone. On the
//     leader they carry its real term, so the store fences them; on a
//     follower they are not sent at all.
//   - Execution writes (claiming, heart-beating and finishing the runs this
//     node executes, and inserting the next attempt of a failed run, which
//     the unique key makes exactly-once) go through from every node with
//     term 0, so a node that loses leadership in the middle of a run still
//     records how it ended.
//
// The controller marks its own writes by giving them a term: its Term
// function must be the wrapper's Term method. Writes without a term (API
// actions such as a manual trigger or a kill) pass through unchanged.
type GatedStore struct {
	store.Store
	node    string
	leading func() (bool, int64)

	mu  sync.Mutex
	own map[int64]bool // runs this node claimed (or left running in a previous life)
}

// ControllerStore wraps st for the job controller of node. leading reports
// whether this node leads now and with which term. The result's Term
// method is the controller's Term function.
func ControllerStore(st store.Store, node string, leading func() (bool, int64)) *GatedStore {
	return &GatedStore{Store: st, node: node, leading: leading, own: map[int64]bool{}}
}

// Term is the job controller's Term function: the node's term while it
// leads, -1 (still marking the write as the controller's) while it follows.
func (g *GatedStore) Term() int64 {
	if ok, term := g.leading(); ok && term > 0 {
		return term
	}
	return -1
}

// errFollower is returned for a scheduling write attempted on a follower.
func errFollower(what string) error {
	return fmt.Errorf("%s: this node does not lead: %w", what, store.ErrStaleTerm)
}

// term returns the term a scheduling write must carry, or an error on a
// follower.
func (g *GatedStore) term(what string) (int64, error) {
	ok, term := g.leading()
	if !ok || term <= 0 {
		return 0, errFollower(what)
	}
	return term, nil
}

// RunInsert: a scheduled run is the leader's to create. A follower answers
// ErrDuplicate, which the controller reads as "another node created it"
// (the leader does). Retries and untermed inserts go through.
func (g *GatedStore) RunInsert(ctx context.Context, p store.RunInsertParams) (store.Run, error) {
	if p.Term == 0 || p.Run.Reason == store.ReasonRetry {
		p.Term = 0
		return g.Store.RunInsert(ctx, p)
	}
	term, err := g.term("schedule a run")
	if err != nil {
		return store.Run{}, fmt.Errorf("%w (%w)", store.ErrDuplicate, err)
	}
	p.Term = term
	return g.Store.RunInsert(ctx, p)
}

// RunInsertBatch is RunInsert for many runs: the leader's scheduled runs
// carry its term; on a follower every scheduled item is answered
// ErrDuplicate, as RunInsert does, and only retries and untermed batches go
// through.
func (g *GatedStore) RunInsertBatch(ctx context.Context, p store.RunInsertBatchParams) ([]store.RunInsertResult, error) {
	if p.Term == 0 {
		return g.Store.RunInsertBatch(ctx, p)
	}
	term, err := g.term("schedule runs")
	if err != nil {
		out := make([]store.RunInsertResult, len(p.Items))
		for i := range out {
			out[i].Err = fmt.Errorf("%w (%w)", store.ErrDuplicate, err)
		}
		return out, nil
	}
	p.Term = term
	return g.Store.RunInsertBatch(ctx, p)
}

// JobAdvance on a follower is a no-op: the leader records the schedule.
func (g *GatedStore) JobAdvance(ctx context.Context, p store.JobAdvanceParams) error {
	if p.Term == 0 {
		return g.Store.JobAdvance(ctx, p)
	}
	term, err := g.term("advance a job")
	if err != nil {
		return nil
	}
	p.Term = term
	return g.Store.JobAdvance(ctx, p)
}

// RunRelease is a scheduling write.
func (g *GatedStore) RunRelease(ctx context.Context, p store.RunReleaseParams) (store.Run, error) {
	if p.Term != 0 {
		term, err := g.term("release a run")
		if err != nil {
			return store.Run{}, err
		}
		p.Term = term
	}
	return g.Store.RunRelease(ctx, p)
}

// RunCancel is a scheduling write.
func (g *GatedStore) RunCancel(ctx context.Context, p store.RunCancelParams) (store.Run, error) {
	if p.Term != 0 {
		term, err := g.term("cancel a run")
		if err != nil {
			return store.Run{}, err
		}
		p.Term = term
	}
	return g.Store.RunCancel(ctx, p)
}

// RunPrune is a scheduling write.
func (g *GatedStore) RunPrune(ctx context.Context, p store.RunPruneParams) (int, error) {
	if p.Term != 0 {
		term, err := g.term("prune runs")
		if err != nil {
			return 0, err
		}
		p.Term = term
	}
	return g.Store.RunPrune(ctx, p)
}

// RunFinish of a run this node executes is an execution write; finishing
// any other run (one whose node died) is the leader's.
func (g *GatedStore) RunFinish(ctx context.Context, p store.RunFinishParams) (store.Run, error) {
	g.mu.Lock()
	mine := g.own[p.ID]
	g.mu.Unlock()
	switch {
	case mine || p.Term == 0:
		p.Term = 0
	default:
		term, err := g.term("finish another node's run")
		if err != nil {
			return store.Run{}, err
		}
		p.Term = term
	}
	r, err := g.Store.RunFinish(ctx, p)
	if mine && err == nil {
		g.mu.Lock()
		delete(g.own, p.ID)
		g.mu.Unlock()
	}
	return r, err
}

// RunFinishBatch is RunFinish for many runs: the runs this node executes
// are finished in one untermed batch; the others (runs whose node died)
// in a second batch carrying the leader's term, or, on a follower, are
// answered ErrStaleTerm item by item.
func (g *GatedStore) RunFinishBatch(ctx context.Context, p store.RunFinishBatchParams) ([]store.RunFinishResult, error) {
	out := make([]store.RunFinishResult, len(p.Items))
	var mine, others []int
	g.mu.Lock()
	for i, it := range p.Items {
		if g.own[it.ID] || p.Term == 0 {
			mine = append(mine, i)
		} else {
			others = append(others, i)
		}
	}
	g.mu.Unlock()
	send := func(idx []int, term int64) error {
		if len(idx) == 0 {
			return nil
		}
		items := make([]store.RunFinishParams, len(idx))
		for j, i := range idx {
			items[j] = p.Items[i]
		}
		res, err := g.Store.RunFinishBatch(ctx, store.RunFinishBatchParams{Items: items, Term: term, Now: p.Now})
		if err != nil {
			return err
		}
		for j, i := range idx {
			out[i] = res[j]
		}
		return nil
	}
	if err := send(mine, 0); err != nil {
		return nil, err
	}
	g.mu.Lock()
	for _, i := range mine {
		if out[i].Err == nil {
			delete(g.own, p.Items[i].ID)
		}
	}
	g.mu.Unlock()
	if len(others) > 0 {
		term, err := g.term("finish another node's runs")
		if err != nil {
			for _, i := range others {
				out[i].Err = err
			}
			return out, nil
		}
		if err := send(others, term); err != nil {
			// The first batch is committed: report the second's failure
			// on its own items.
			for _, i := range others {
				out[i].Err = err
			}
		}
	}
	return out, nil
}

// RunClaim remembers the claimed runs as this node's.
func (g *GatedStore) RunClaim(ctx context.Context, p store.RunClaimParams) ([]store.Run, error) {
	runs, err := g.Store.RunClaim(ctx, p)
	if len(runs) > 0 {
		g.mu.Lock()
		for _, r := range runs {
			g.own[r.ID] = true
		}
		g.mu.Unlock()
	}
	return runs, err
}

// RunListStale: the runs this node left running in a previous life are its
// own to finish; looking for other nodes' dead runs is the leader's job, so
// a follower sees none.
func (g *GatedStore) RunListStale(ctx context.Context, p store.RunListStaleParams) ([]store.Run, error) {
	if p.Node == "" {
		if ok, _ := g.leading(); !ok {
			return nil, nil
		}
		return g.Store.RunListStale(ctx, p)
	}
	runs, err := g.Store.RunListStale(ctx, p)
	if p.Node == g.node && len(runs) > 0 {
		g.mu.Lock()
		for _, r := range runs {
			g.own[r.ID] = true
		}
		g.mu.Unlock()
	}
	return runs, err
}
