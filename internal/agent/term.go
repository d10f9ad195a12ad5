package agent

import "context"

// termKey is the context key of the leader term an apply runs under.
type termKey struct{}

// WithTerm returns ctx carrying the leader term under which the agent
// writes its state and reports. A StateStore shared by several nodes
// (agentpg) fences a write carrying a term: it commits only while that term
// still leads, so a leader that was paused past its lease and lost it
// cannot overwrite what its successor recorded.
func WithTerm(ctx context.Context, term int64) context.Context {
	return context.WithValue(ctx, termKey{}, term)
}

// TermOf returns the term WithTerm put in ctx, or 0 (no fencing).
func TermOf(ctx context.Context) int64 {
	t, _ := ctx.Value(termKey{}).(int64)
	return t
}
