// Package loopback decides whether an address stays on this machine: the
// rule by which a daemon without a token answers only local requests, shared
// by the HTTP API and the web UI.
package loopback

import (
	"net"
	"strings"
)

// Host reports whether a Host header (host or host:port) names this machine
// by a loopback name ("localhost", "*.localhost") or address.
func Host(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen reports whether a listen address (host:port) accepts connections
// only from this machine. An empty host listens everywhere.
func Listen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
