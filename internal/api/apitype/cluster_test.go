package apitype

import (
	"testing"
	"time"
)

// TestLiveness checks the boundaries of alive, suspect and down.
func TestLiveness(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	ttl := 5 * time.Second
	for _, tc := range []struct {
		name   string
		age    time.Duration
		ttl    time.Duration
		want   string
		silent bool
	}{
		{"just heard", 0, ttl, NodeAlive, false},
		{"one TTL", ttl, ttl, NodeAlive, false},
		{"past one TTL", ttl + time.Millisecond, ttl, NodeSuspect, true},
		{"three TTLs", 3 * ttl, ttl, NodeSuspect, true},
		{"past three TTLs", 3*ttl + time.Millisecond, ttl, NodeDown, true},
		{"an hour", time.Hour, ttl, NodeDown, true},
		{"no TTL", time.Hour, 0, NodeAlive, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hb := now.Add(-tc.age)
			got, since := Liveness(now, hb, tc.ttl)
			if got != tc.want || (since != nil) != tc.silent {
				t.Fatalf("Liveness = %s, %v; want %s (silent %v)", got, since, tc.want, tc.silent)
			}
			if since != nil && !since.Equal(hb) {
				t.Errorf("silent since %s, want the last heartbeat %s", since, hb)
			}
		})
	}
	if got, _ := Liveness(now, time.Time{}, ttl); got != NodeAlive {
		t.Errorf("a node with no heartbeat recorded (this daemon alone) is %s, want alive", got)
	}
}
