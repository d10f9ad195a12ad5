package daemon

import (
	"errors"
	"testing"
)

// TestRebootGroupFlags: names FleetLock clients cannot send and empty or
// malformed window references are usage errors at start.
func TestRebootGroupFlags(t *testing.T) {
	tests := []struct {
		flag string
		ok   bool
	}{
		{"workers=2", true},
		{"db.eu-1=1@weekend", true},
		{"bad name=1", false},
		{"x=1@", false},
		{"x=1@two words", false},
		{"=1", false},
		{"x=0", false},
		{"ünicode=1", false},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			f := rebootFlags{groups: listFlag{tt.flag}, maxHold: 1}
			err := f.check()
			var u *UsageError
			if tt.ok != (err == nil) || (err != nil && !errors.As(err, &u)) {
				t.Fatalf("--reboot-group %q: %v, want ok %v", tt.flag, err, tt.ok)
			}
		})
	}
}
