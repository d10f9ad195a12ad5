// Package weekly implements almanac's two weekly calendars: maintenance
// windows in the style of Zincati's periodic strategy, and start/stop event
// schedules in the ProsperOps tag syntax.
//
// # Windows
//
// A [Window] is a set of weekdays, a wall-clock start time and a length in
// minutes ("Sat and Sun at 23:30 for 60 minutes"); [ParseWindow] reads one from
// the fields a configuration file names. [NewCalendar] merges any number of
// windows into one weekly [Calendar] read in a time zone: overlapping and
// touching windows become one, and a window running past Sunday midnight is
// split at the week boundary. Every window is half-open, [start, start+length):
// a window of 60 minutes starting at 23:30 admits 00:29:59 and not 00:30.
//
// A calendar answers questions about instants: [Calendar.Contains],
// [Calendar.NextOpen] and [Calendar.CurrentEnd], each in O(log n) for n merged
// intervals and without allocating, plus [Calendar.WeeklyMinutes] and
// [Calendar.Intervals] for reports and pictures of the week.
//
// Windows follow the wall clock of their zone, day by day. Each day a window
// opens at the first instant the zone's clock reads its start time (or later)
// and closes at the first instant the clock reads its end time (or later);
// these are exactly the instants [calendar.Resolve] reports as First. So on a
// spring-forward day a window overlapping the skipped hour is shorter in real
// time (and one lying wholly inside it does not open that day), and on a
// fall-back day a window spanning the repeated hour is longer. A window never
// opens twice for the same day: once the clock has shown a time, rewinding it
// in a fall-back does not reopen a window that has already closed, nor open one
// whose start has already passed. In UTC, and in any zone without DST, a
// window's real length always equals its configured length.
//
// # Events
//
// Events are points in the week written as "mon0900_tue0900_1700": a
// lower-case three-letter day and a four-digit 24-hour time, where a bare time
// is another event on the previous day. They are read in a time zone; an event
// whose wall time a spring-forward skips fires at the first instant after the
// gap, and one in a repeated hour fires once, at its first occurrence.
//
// Everything in this package is pure: it reads no clock and no files, and
// imports only the standard library and almanac's calendar core.
package weekly
