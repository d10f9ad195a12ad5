package zincati

import "testing"

// TestByteOrderMark: a fragment saved with a UTF-8 byte-order mark reads
// as without it.
func TestByteOrderMark(t *testing.T) {
	f, err := Parse("bom.toml", []byte("\ufeff"+docExample))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Windows) != 2 {
		t.Errorf("%d windows, want 2", len(f.Windows))
	}
}
