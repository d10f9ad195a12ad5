package fleet

import (
	"context"
	"sync"
	"time"
)

// Observed is what the scheduler remembers about a resource between
// inventories (and, through a Ledger, across restarts).
type Observed struct {
	Resource Resource `json:"resource"`
	// State is the state almanac last knew: from the inventory, or the target
	// of its own successful action since.
	State State `json:"state"`
	// SeenAt is when the resource was last listed by an inventory.
	SeenAt time.Time `json:"seen_at"`
	// ScheduleSince is when the current schedule tags were first seen;
	// transitions at or before it are never acted on.
	ScheduleSince time.Time `json:"schedule_since"`
	// ChangeSeenAt is when an inventory last found a state change made
	// outside almanac (the change happened between the previous inventory and
	// then). A transition before it that has not been acted on yet (missed
	// during downtime) is not applied: the change may have come after it.
	ChangeSeenAt time.Time `json:"change_seen_at,omitzero"`
}

// Ledger is the durable memory the scheduler needs to act on each (resource,
// transition) at most once and to diff inventories across restarts. The
// daemon's store implements it (a table of claimed transitions with a UNIQUE
// key on resource id and instant, a checkpoint row and an inventory table);
// MemoryLedger serves tests and single-process use.
type Ledger interface {
	// ClaimTransition records that the transition of resource id at instant
	// at is being acted on with action a. It returns false, without error,
	// when that (id, at) was claimed before, by this process or an earlier
	// one. It must be atomic (an insert under a unique key, not a check then
	// an insert).
	ClaimTransition(ctx context.Context, id string, at time.Time, a Action) (bool, error)
	// Checkpoint returns the instant up to which transitions have been
	// evaluated, or the zero time when never.
	Checkpoint(ctx context.Context) (time.Time, error)
	// SetCheckpoint records that every transition up to t has been evaluated.
	SetCheckpoint(ctx context.Context, t time.Time) error
	// LoadInventory returns the last saved inventory, keyed by resource id.
	LoadInventory(ctx context.Context) (map[string]Observed, error)
	// SaveInventory replaces the saved inventory.
	SaveInventory(ctx context.Context, inv map[string]Observed) error
	// SaveObserved updates one resource of the saved inventory (after an
	// action changed its state).
	SaveObserved(ctx context.Context, o Observed) error
}

// MemoryLedger is an in-memory Ledger. A process restart loses it, so it
// guarantees at-most-once only within one process; the daemon uses its store.
type MemoryLedger struct {
	mu         sync.Mutex
	claims     map[claimKey]Action
	checkpoint time.Time
	inventory  map[string]Observed
}

type claimKey struct {
	id string
	at int64
}

// NewMemoryLedger returns an empty ledger.
func NewMemoryLedger() *MemoryLedger {
	return &MemoryLedger{claims: map[claimKey]Action{}}
}

// ClaimTransition implements Ledger.
func (m *MemoryLedger) ClaimTransition(_ context.Context, id string, at time.Time, a Action) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := claimKey{id, at.UnixNano()}
	if _, ok := m.claims[k]; ok {
		return false, nil
	}
	m.claims[k] = a
	return true, nil
}

// Claims returns how many transitions have been claimed.
func (m *MemoryLedger) Claims() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.claims)
}

// Checkpoint implements Ledger.
func (m *MemoryLedger) Checkpoint(context.Context) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.checkpoint, nil
}

// SetCheckpoint implements Ledger.
func (m *MemoryLedger) SetCheckpoint(_ context.Context, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checkpoint = t
	return nil
}

// LoadInventory implements Ledger.
func (m *MemoryLedger) LoadInventory(context.Context) (map[string]Observed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Observed, len(m.inventory))
	for k, v := range m.inventory {
		out[k] = v
	}
	return out, nil
}

// SaveInventory implements Ledger.
func (m *MemoryLedger) SaveInventory(_ context.Context, inv map[string]Observed) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inventory = make(map[string]Observed, len(inv))
	for k, v := range inv {
		m.inventory[k] = v
	}
	return nil
}

// SaveObserved implements Ledger.
func (m *MemoryLedger) SaveObserved(_ context.Context, o Observed) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inventory == nil {
		m.inventory = make(map[string]Observed)
	}
	m.inventory[o.Resource.ID] = o
	return nil
}
