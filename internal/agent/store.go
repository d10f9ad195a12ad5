package agent

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"
)

// ErrNotFound is returned by GetReport for an unknown id.
var ErrNotFound = errors.New("apply report not found")

// ReportFilter selects reports for ListReports.
type ReportFilter struct {
	// Before, if non-zero, lists only reports with a smaller id (paging).
	Before int64
	// Limit caps the answer (0 means 100).
	Limit int
}

// DefaultListLimit is the page size of ListReports when the filter sets none.
const DefaultListLimit = 100

// Retention says which reports to keep. Zero fields keep everything.
type Retention struct {
	Keep   int           // the newest Keep reports
	MaxAge time.Duration // reports that ended within MaxAge
}

// StateStore persists the agent's resource state and its reports, so both
// survive a restart and are visible to the API and web UI.
type StateStore interface {
	// LoadState returns the saved resource state (empty if none).
	LoadState(ctx context.Context) (State, error)
	// SaveState replaces the saved resource state.
	SaveState(ctx context.Context, s State) error
	// AddReport stores r, assigns r.ID and returns it.
	AddReport(ctx context.Context, r *Report) (int64, error)
	// ListReports returns reports newest first, without their Resources
	// and Events (Summary, Warnings and the rest are filled).
	ListReports(ctx context.Context, f ReportFilter) ([]*Report, error)
	// GetReport returns one full report, or an error wrapping ErrNotFound.
	GetReport(ctx context.Context, id int64) (*Report, error)
	// PruneReports deletes reports outside the retention and reports how
	// many it deleted. now is the current instant.
	PruneReports(ctx context.Context, keep Retention, now time.Time) (int, error)
}

// MemoryStore is a StateStore in memory, for tests and for a daemon run
// without persistence. It is safe for concurrent use.
type MemoryStore struct {
	mu      sync.Mutex
	state   State
	reports []*Report // ascending id
	lastID  int64
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{state: State{}} }

var _ StateStore = (*MemoryStore)(nil)

// LoadState returns a copy of the state.
func (m *MemoryStore) LoadState(context.Context) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state.Clone(), nil
}

// SaveState stores a copy of s.
func (m *MemoryStore) SaveState(_ context.Context, s State) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state = s.Clone()
	return nil
}

// AddReport stores a copy of r.
func (m *MemoryStore) AddReport(_ context.Context, r *Report) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastID++
	r.ID = m.lastID
	c := *r
	c.Gated = nil
	m.reports = append(m.reports, &c)
	return r.ID, nil
}

// ListReports returns summaries newest first.
func (m *MemoryStore) ListReports(_ context.Context, f ReportFilter) ([]*Report, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var out []*Report
	for i := len(m.reports) - 1; i >= 0 && len(out) < limit; i-- {
		r := m.reports[i]
		if f.Before != 0 && r.ID >= f.Before {
			continue
		}
		c := *r
		c.Resources, c.Events = nil, nil
		out = append(out, &c)
	}
	return out, nil
}

// GetReport returns a copy of report id.
func (m *MemoryStore) GetReport(_ context.Context, id int64) (*Report, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := sort.Search(len(m.reports), func(i int) bool { return m.reports[i].ID >= id })
	if i == len(m.reports) || m.reports[i].ID != id {
		return nil, ErrNotFound
	}
	c := *m.reports[i]
	return &c, nil
}

// PruneReports applies the retention.
func (m *MemoryStore) PruneReports(_ context.Context, keep Retention, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.reports[:0]
	n := len(m.reports)
	for i, r := range m.reports {
		newer := n - i // 1 for the newest
		if (keep.Keep > 0 && newer > keep.Keep) || (keep.MaxAge > 0 && r.End.Before(now.Add(-keep.MaxAge))) {
			continue
		}
		kept = append(kept, r)
	}
	deleted := n - len(kept)
	m.reports = kept
	return deleted, nil
}
