package jobname

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"backup", true},
		{"db.dump-2_nightly", true},
		{"0day", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"", false},
		{"-x", false},
		{".hidden", false},
		{"a b", false},
		{"a/b", false},
		{"café", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Valid(tt.name); got != tt.ok {
				t.Errorf("Valid(%q) = %v, want %v", tt.name, got, tt.ok)
			}
		})
	}
}
