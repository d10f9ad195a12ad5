// Package connlimit bounds how many connections a listener holds open at
// once, so clients that open connections and then stall cannot exhaust the
// daemon's file descriptors.
package connlimit

import (
	"net"
	"sync"
)

// Listener wraps a net.Listener: once Max connections are open, Accept
// waits until one closes. Connections queue in the kernel's backlog
// meanwhile, and the server's read timeouts make every slot come free.
type Listener struct {
	net.Listener
	sem  chan struct{}
	done chan struct{}
	once sync.Once
}

// New returns l limited to limit open connections (at least 1).
func New(l net.Listener, limit int) *Listener {
	return &Listener{Listener: l, sem: make(chan struct{}, max(limit, 1)), done: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &conn{Conn: c, release: func() { <-l.sem }}, nil
}

// Close closes the listener and wakes an Accept waiting for a slot.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// Open returns how many slots are taken: open connections, plus one while
// Accept waits for the next connection.
func (l *Listener) Open() int { return len(l.sem) }

// conn frees its slot when it is closed, once.
type conn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
