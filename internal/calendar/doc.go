// Package calendar is almanac's civil-time core, shared by every schedule
// engine (cron, weekly events, weekly windows, Puppet schedules).
//
// It answers two questions the engines keep asking:
//
//   - Which zone does this name mean? [LoadZone] accepts IANA names
//     ("America/New_York") and the lower-case tag form used in resource tags
//     ("america-new_york", "etc-gmt+5"), resolved through a table built from the
//     embedded tz database rather than by string surgery, and caches every
//     *time.Location so the database is read once per zone.
//   - Which instants does this wall-clock time name? [Resolve] maps a civil
//     date and time in a zone to zero instants (a spring-forward gap), one, or
//     two (a fall-back repeated hour), and says which case applied, so each
//     engine applies its DST policy explicitly instead of trusting whatever
//     time.Date happens to pick.
package calendar
