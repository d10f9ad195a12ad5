package manifest

import (
	"strings"
	"testing"
)

// TestByteOrderMark: a UTF-8 byte-order mark at the start of a manifest is
// skipped; one anywhere else is still an unexpected character.
func TestByteOrderMark(t *testing.T) {
	f := parseOK(t, "\ufeffexec { 'a': command => '/bin/true' }\n")
	if len(f.Body) != 1 {
		t.Fatalf("parsed %d statements, want 1", len(f.Body))
	}
	_, err := ParseFile("t.pp", []byte("$x = 1\n\ufeff$y = 2\n"))
	if err == nil || !strings.Contains(err.Error(), "t.pp:2:1") {
		t.Errorf("a mark inside the file: %v, want an error at t.pp:2:1", err)
	}
}
