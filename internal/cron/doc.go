// Package cron parses almanac's cron dialect and computes fire times.
//
// [Parse] compiles an expression into a [Spec]: one bitset per field plus the
// few per-month rules (L, W, #) that a bitset cannot hold. [Spec.Next],
// [Spec.Prev] and [Spec.Count] answer "when next", "when last" and "how many
// between" without enumerating candidate times one unit at a time: the search
// runs on civil integers (days since the epoch, seconds of the day), jumps to
// the next set bit of each field, and consults the time zone once or twice
// per answer. There is no search horizon; a spec that can never fire is
// rejected by Parse instead.
//
// Daylight-saving transitions follow ISC/Vixie cron by default: a job whose
// minute and hour fields are fixed runs once right after a spring-forward gap
// that swallowed its time and once in a fall-back repeated hour; a job with a
// wildcard or step minute or hour follows real elapsed time. [WithDSTGap] and
// [WithDSTRepeat] change the fixed-time behaviour. docs/cron.md describes the
// dialect in full.
//
// The package imports only the standard library and almanac's calendar core.
package cron
