// Package fleet schedules managed resources: machines or services that an
// inventory source can list, start, stop and hibernate, each carrying its
// weekly start/stop schedule as tags (almanac-schedule-start = "mon0900", or
// the prosperops-schedule- spelling).
//
// [Validate] applies the tag rules to one tag set. A [Scheduler] keeps an
// inventory of a [Source], diffs tags and states between inventories, acts on
// each resource exactly at its schedule's transition instants (never in
// between, so a manual change lasts until the next transition), retries failed
// actions with backoff and then tells a [Notifier], and reports everything it
// sees and does to an [EventSink]. Time comes from an injected clock.
package fleet
