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
package agent
