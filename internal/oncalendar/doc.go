// Package oncalendar parses systemd calendar events, the OnCalendar=
// language of systemd.time(7) (`Mon..Fri *-*-* 09:00`, `*-*~01`,
// `*:0/15`, `quarterly`, `... Europe/Berlin`), and computes their fire
// times.
//
// [Parse] compiles an event into a [Spec]; [Spec.Next] returns the first
// instant after a given one without allocating, and [Spec.String] the
// normalized form systemd prints. Nonexistent and repeated local times
// follow systemd: a wall time skipped by a spring-forward transition does
// not fire, and one repeated by a fall-back transition fires at both
// instants. docs/systemd.md describes the language and the differences
// from systemd. The package uses only the standard library.
package oncalendar
