package loopback_test

import (
	"testing"

	"github.com/almanac-sh/almanac/internal/loopback"
)

func TestHost(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"localhost:8080", true},
		{"LocalHost:8080", true},
		{"app.localhost", true},
		{"app.localhost:9", true},
		{"127.0.0.1:8080", true},
		{"127.1.2.3", true},
		{"[::1]:8080", true},
		{"[::1]", true},
		{"evil.example", false},
		{"evil.example:8080", false},
		{"localhost.evil.example", false},
		{"10.0.0.1:80", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if got := loopback.Host(tt.host); got != tt.want {
				t.Errorf("Host(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

func TestListen(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8080", true}, {"localhost:80", true}, {"[::1]:9", true}, {"127.1.2.3:1", true},
		{":8080", false}, {"0.0.0.0:8080", false}, {"10.0.0.1:80", false}, {"[::]:80", false}, {"nonsense", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := loopback.Listen(tt.addr); got != tt.want {
				t.Errorf("Listen(%q) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}
