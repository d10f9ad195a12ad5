package agent

import (
	"context"
	"fmt"
	"time"
)

// DefaultLeaderCheck is how often an agent with Config.Leading asks whether
// its node leads.
const DefaultLeaderCheck = time.Second

// checkLeader asks Config.Leading and acts on a change: on gaining the lead
// (or a new term) it reloads the state and queues an apply of kind; on
// losing it, it drops what was queued.
func (a *Agent) checkLeader(ctx context.Context, kind TriggerKind) {
	ok, term := a.cfg.Leading()
	a.mu.Lock()
	was, wasTerm := a.leading, a.term
	a.mu.Unlock()
	switch {
	case ok && (!was || term != wasTerm):
		state, err := a.cfg.Store.LoadState(ctx)
		if err != nil {
			// Stay in standby and try again at the next check: applying
			// from a stale state could run gated resources twice.
			a.cfg.Log.Error("took the lead but cannot load the agent state", "term", term, "err", err)
			return
		}
		if state == nil {
			state = State{}
		}
		a.state, a.gated = state, nil
		a.mu.Lock()
		a.leading, a.term, a.gateWake = true, term, nil
		a.mu.Unlock()
		a.cfg.Log.Info("applying for the cluster", "term", term)
		a.enqueue(Trigger{Kind: kind, Reason: fmt.Sprintf("term %d", term), At: a.cfg.Clock.Now()})
	case !ok && was:
		a.mu.Lock()
		a.leading, a.pending, a.gateWake = false, nil, nil
		a.mu.Unlock()
		a.gated = nil
		a.cfg.Log.Warn("standing by: another node applies", "term", wasTerm)
	}
}
