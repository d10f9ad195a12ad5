// Package agent turns the daemon into an agent for the manifests it loads: it
// applies the catalog at start-up, every run interval (at a fixed per-host
// phase, so a fleet spreads its runs), when the manifests change, on demand,
// and at the exact instant the schedule of a gated resource next opens. The
// last is what Puppet's agent cannot do: its schedules only stop resources
// from running, so a narrow window that no agent run happens to hit is never
// applied. The agent computes the next opening (Gate.NextMatch) and sleeps
// until then on its injected clock.
//
// One apply runs at a time; triggers that arrive while it runs coalesce into
// one follow-up. Each apply produces a [Report], kept with the per-resource
// state in a [StateStore] so both survive restarts.
//
// The apply itself goes through the [Applier] interface; package
// agent/manifestapply adapts the apply engine to it.
//
// # Several nodes, one applier
//
// On a cluster (several nodes sharing a PostgreSQL store) every node runs an
// agent, but only the node that holds the cluster's lease applies: the same
// lease, and the same Leading function, that let only the leader run the job
// controller. The agent asks Leading before it takes each trigger and at
// least every LeaderCheck while idle:
//
//   - A node that does not lead drops its triggers (interval ticks, gate
//     openings, manifest changes, manual requests) and forgets its gate
//     wake-ups; Status reports it as Standby.
//   - A node that becomes leader reloads the state from the shared store
//     (the previous leader saved it after each apply) and applies at once,
//     with a TriggerLeader report, which also recomputes the gate wake-ups.
//   - Every write of an apply carries the term it was taken under
//     (WithTerm); a shared store rejects it once another node leads, so a
//     leader paused past its lease cannot overwrite its successor's state.
package agent
