package connlimit_test

import (
	"net"
	"testing"

	"github.com/almanac-sh/almanac/internal/connlimit"
)

func TestLimit(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := connlimit.New(inner, 2)
	defer l.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	var clients []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	first, second := <-accepted, <-accepted
	if l.Open() != 2 {
		t.Fatalf("Open() = %d, want 2", l.Open())
	}
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted while two were open")
	default:
	}
	// Closing one (twice: the second close must not free another slot)
	// lets the third in.
	first.Close()
	first.Close()
	third := <-accepted
	if l.Open() != 2 {
		t.Errorf("Open() = %d after one close and one accept, want 2", l.Open())
	}
	_ = clients
	second.Close()
	third.Close()
	// The accepting goroutine reserves a slot while it waits.
	if l.Open() > 1 {
		t.Errorf("Open() = %d after closing all, want at most the waiting Accept's 1", l.Open())
	}
	l.Close()
	if _, ok := <-accepted; ok {
		t.Error("Accept returned a connection after Close")
	}
}
