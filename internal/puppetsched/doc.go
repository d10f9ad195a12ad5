// Package puppetsched implements Puppet's `schedule` resource type: the gate
// that decides whether a resource may be applied at a given moment, given when
// it was last checked.
//
// The semantics follow Puppet 7 exactly, quirks included (inclusive range
// ends, "H" meaning H:00:00, a range whose start equals its end lasting 24
// hours, the weekday of a cross-midnight range being the day its window
// started, a 30-day month, integer scale/repeat, `number` comparing a single
// calendar field), and so do the validation messages, so that a manifest that
// fails in Puppet fails in almanac with the same words.
//
// almanac extends the type with `time_zone` (Puppet uses the agent's local
// zone) and `windows` (weekly maintenance windows, ANDed with the Puppet
// attributes), and adds [Schedule.NextMatch], which answers the question
// Puppet cannot: when is the next instant at which a gated resource may run.
package puppetsched
