package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// cliAt runs an almanac client command against the daemon at url (with
// the end-to-end tests' token) and returns its standard output, failing
// the test if it fails.
func cliAt(t *testing.T, url string, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, append(args, "--server", url, "--token", e2eToken)...)
	if code != exitOK {
		t.Fatalf("almanac %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// offsetClock is the real clock shifted by a fixed duration.
type offsetClock struct{ d time.Duration }

func (c offsetClock) Now() time.Time                       { return time.Now().Add(c.d) }
func (c offsetClock) NewTimer(d time.Duration) clock.Timer { return clock.Real{}.NewTimer(d) }
