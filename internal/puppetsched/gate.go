package puppetsched

import (
	"errors"
	"time"
)

// RunGate is a schedule as an apply run gates on it: it matches as the
// schedule does, and its Eval hands back a matching failure in the words
// Puppet aborts a run with ("Failed to apply catalog: <message>"): the bare
// message of the [MatchError], without the schedule's name.
type RunGate struct{ s *Schedule }

// Gate returns s as a [RunGate].
func (s *Schedule) Gate() RunGate { return RunGate{s} }

// Match is [Schedule.Match].
func (g RunGate) Match(lastChecked, now time.Time) bool { return g.s.Match(lastChecked, now) }

// Eval is [Schedule.Eval] with a *MatchError reduced to its message.
func (g RunGate) Eval(lastChecked, now time.Time) (bool, error) {
	ok, err := g.s.Eval(lastChecked, now)
	var me *MatchError
	if errors.As(err, &me) {
		return false, errors.New(me.Msg)
	}
	return ok, err
}
