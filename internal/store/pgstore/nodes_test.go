package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestNodeRegister: a node name is held by one live instance; another
// instance is refused until the holder's heartbeat is older than the TTL,
// and then the holder's heartbeats are refused instead.
func TestNodeRegister(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	const ttl = 5 * time.Second
	a := Node{ID: "n1", Address: "127.0.0.1:8080", Instance: "i-a", Host: "host-a", PID: 11, StartedAt: t0}
	b := Node{ID: "n1", Address: "127.0.0.1:8081", Instance: "i-b", Host: "host-b", PID: 22, StartedAt: t0}
	at := func(n Node, d time.Duration) Node { n.HeartbeatAt = t0.Add(d); return n }

	if err := s.NodeRegister(ctx, at(a, 0), ttl, nil); err != nil {
		t.Fatalf("first registration: %v", err)
	}
	for _, d := range []time.Duration{time.Second, ttl - time.Millisecond} {
		err := s.NodeRegister(ctx, at(b, d), ttl, func(Node) bool { return false })
		var inUse *NodeInUseError
		if !errors.As(err, &inUse) || !errors.Is(err, ErrNodeInUse) {
			t.Fatalf("second instance %s later: %v, want NodeInUseError", d, err)
		}
		if inUse.Other.Host != "host-a" || inUse.Other.PID != 11 || inUse.Other.Instance != "i-a" || inUse.Age != d {
			t.Errorf("refusal names %+v (age %s)", inUse.Other, inUse.Age)
		}
		msg := err.Error()
		for _, want := range []string{`"n1"`, "host-a", "pid 11"} {
			if !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
				t.Errorf("message %q does not say %s on one line", msg, want)
			}
		}
	}
	// The holder may register again (a reconnect) and heart-beat.
	if err := s.NodeRegister(ctx, at(a, 2*time.Second), ttl, nil); err != nil {
		t.Errorf("holder registers again: %v", err)
	}
	if err := s.NodeHeartbeat(ctx, at(a, 3*time.Second)); err != nil {
		t.Errorf("holder's heartbeat: %v", err)
	}
	// A holder the caller knows to be dead is taken over at once.
	var asked Node
	if err := s.NodeRegister(ctx, at(b, 4*time.Second), ttl, func(h Node) bool { asked = h; return true }); err != nil {
		t.Errorf("takeover of a holder known dead: %v", err)
	}
	if asked.Instance != "i-a" || asked.PID != 11 {
		t.Errorf("dead() asked about %+v, want the holder", asked)
	}
	if err := s.NodeRegister(ctx, at(a, 4*time.Second), ttl, func(Node) bool { return true }); err != nil {
		t.Fatal(err) // back to a, for the TTL case
	}
	// Its heartbeat then goes stale: the other instance takes the name over.
	if err := s.NodeRegister(ctx, at(b, 4*time.Second+ttl), ttl, nil); err != nil {
		t.Fatalf("takeover of a dead holder: %v", err)
	}
	if err := s.NodeHeartbeat(ctx, at(a, 9*time.Second)); !errors.Is(err, ErrNodeInUse) {
		t.Errorf("old holder's heartbeat after the takeover: %v, want ErrNodeInUse", err)
	}
	if err := s.NodeRemove(ctx, "n1", "i-a"); err != nil {
		t.Fatal(err)
	}
	c, err := s.Cluster(ctx)
	if err != nil || len(c.Nodes) != 1 || c.Nodes[0].Address != "127.0.0.1:8081" || c.Nodes[0].Host != "host-b" || c.Nodes[0].PID != 22 {
		t.Errorf("after the old holder's removal: %+v, %v; want b's row", c.Nodes, err)
	}
	if err := s.NodeRegister(ctx, Node{ID: "n2"}, ttl, nil); err == nil {
		t.Error("registration without an instance succeeded")
	}
}

// TestNodeRegisterConcurrent: of several instances registering one name at
// once, exactly one wins.
func TestNodeRegisterConcurrent(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		won  []string
		errs []error
	)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := Node{ID: "same", Instance: fmt.Sprintf("i%d", i), Host: "h", PID: i + 1, HeartbeatAt: t0}
			err := s.NodeRegister(ctx, n, 5*time.Second, nil)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, n.Instance)
			case !errors.Is(err, ErrNodeInUse):
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	if len(won) != 1 {
		t.Errorf("instances that registered: %v, want exactly one", won)
	}
}
