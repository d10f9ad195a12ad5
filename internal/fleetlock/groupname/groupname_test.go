package groupname

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"default", true},
		{"db.eu-west-1", true},
		{"", false},
		{"a b", false},
		{"a/b", false},
		{strings.Repeat("a", MaxLen), true},
		{strings.Repeat("a", MaxLen+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Valid(tt.name); got != tt.want {
				t.Errorf("Valid(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}
