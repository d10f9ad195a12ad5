// Package groupname holds the FleetLock protocol's rule for reboot group
// names, apart from the lock server, so that job validation can apply it
// without depending on the server and its metrics.
package groupname

import "regexp"

// MaxLen bounds a group name.
const MaxLen = 128

// re is the protocol's rule for group names.
var re = regexp.MustCompile(`^[a-zA-Z0-9.-]+$`)

// Valid reports whether name is a valid reboot group name: the FleetLock
// protocol's ^[a-zA-Z0-9.-]+$, at most MaxLen characters.
func Valid(name string) bool { return len(name) <= MaxLen && re.MatchString(name) }
