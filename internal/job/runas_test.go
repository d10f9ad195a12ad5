package job

import (
	"strings"
	"testing"
)

// TestLookupRunAsRefusesWrappingIDs checks the executor's own check, which
// also covers a job stored before Validate refused these: an id past
// 32 bits once wrapped to a real user, 4294967296 to root.
func TestLookupRunAsRefusesWrappingIDs(t *testing.T) {
	for _, runAs := range []string{"4294967296", "4294967297", "-1", "9223372036854775808",
		"0:4294967296", "0:4294967297", "0:-1", "0:9223372036854775808"} {
		t.Run(runAs, func(t *testing.T) {
			id, err := lookupRunAs(runAs)
			if err == nil {
				t.Fatalf("lookupRunAs(%q) = uid %d gid %d, want an error", runAs, id.uid, id.gid)
			}
			if !strings.Contains(err.Error(), "out of range") && !strings.Contains(err.Error(), "not a numeric id") {
				t.Fatalf("lookupRunAs(%q) = %v, want the id named as out of range", runAs, err)
			}
		})
	}
}
