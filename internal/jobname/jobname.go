// Package jobname holds the rule for job names, shared by the job
// controller, the HTTP API (names are path segments) and the CLI (which
// refuses a bad name before asking the daemon).
package jobname

import "regexp"

// nameRE is what a job name may look like: it appears in URLs, file names
// and environment variables.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// Valid reports whether s may name a job.
func Valid(s string) bool { return nameRE.MatchString(s) }

// Rule says what Valid accepts, for messages.
const Rule = "1-128 letters, digits, '.', '_' or '-', starting with a letter or digit"

// ValidPrefix reports whether s can begin a job name (a token's --jobs):
// some valid name starts with it.
func ValidPrefix(s string) bool { return s != "" && Valid(s) }
