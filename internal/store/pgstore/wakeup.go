package pgstore

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Topic names what changed in a wake-up notification.
type Topic string

// Wake-up topics (the payloads the migration's triggers send).
const (
	// TopicJobs: a job was created, changed or deleted.
	TopicJobs Topic = "jobs"
	// TopicRuns: a run was inserted or released, so one may be claimable.
	TopicRuns Topic = "runs"
	// TopicFinished: a run finished (a slot freed, a downstream job may start).
	TopicFinished Topic = "finished"
)

// reconnectDelay is how long the listener waits before reconnecting after
// losing its connection.
const reconnectDelay = time.Second

// Wakeups returns a channel that receives a value soon after another
// transaction (on any node) commits a change of one of the topics (all
// topics when none are given). Signals are merged: one pending value stands
// for any number of changes, so a receiver re-reads the state it cares
// about rather than counting. After the listener reconnects (notifications
// may have been lost meanwhile) every subscriber is signalled. The channel
// is closed when ctx ends or the store closes.
func (s *Store) Wakeups(ctx context.Context, topics ...Topic) <-chan struct{} {
	return s.hub.subscribe(ctx, topics)
}

type subscriber struct {
	ch     chan struct{}
	topics map[Topic]bool // nil = all
}

// hub is one LISTEN connection shared by all subscribers; it is started by
// the first subscription.
type hub struct {
	s *Store

	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	started bool
	closed  bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func newHub(s *Store) *hub {
	return &hub{s: s, subs: map[*subscriber]struct{}{}, done: make(chan struct{})}
}

func (h *hub) subscribe(ctx context.Context, topics []Topic) <-chan struct{} {
	sub := &subscriber{ch: make(chan struct{}, 1)}
	if len(topics) > 0 {
		sub.topics = map[Topic]bool{}
		for _, t := range topics {
			sub.topics[t] = true
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(sub.ch)
		return sub.ch
	}
	h.subs[sub] = struct{}{}
	if !h.started {
		h.started = true
		lctx, cancel := context.WithCancel(context.Background())
		h.cancel = cancel
		go h.listen(lctx)
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-h.done:
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[sub]; ok {
			delete(h.subs, sub)
			close(sub.ch)
		}
	}()
	return sub.ch
}

// broadcast signals the subscribers of topic ("" = everyone).
func (h *hub) broadcast(topic Topic) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		if topic != "" && sub.topics != nil && !sub.topics[topic] {
			continue
		}
		select {
		case sub.ch <- struct{}{}:
		default:
		}
	}
}

// listen keeps a LISTEN connection open until ctx ends, reconnecting after
// errors.
func (h *hub) listen(ctx context.Context) {
	defer close(h.done)
	for ctx.Err() == nil {
		err := h.session(ctx)
		if ctx.Err() != nil {
			return
		}
		_ = err // the connection dropped; try again after a pause
		t := h.s.clock.NewTimer(reconnectDelay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// session runs one connection: LISTEN, then forward notifications. Once
// listening it signals everyone, since changes made while no connection
// listened (before the first one, between reconnects) went unnoticed.
func (h *hub) session(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, h.s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{h.s.channel}.Sanitize()); err != nil {
		return err
	}
	h.broadcast("")
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		h.broadcast(Topic(n.Payload))
	}
}

// close stops the listener and closes every subscriber's channel.
func (h *hub) close() {
	h.mu.Lock()
	if h.closed { // closing twice is harmless
		h.mu.Unlock()
		<-h.done
		return
	}
	h.closed = true
	started := h.started
	if started {
		h.cancel()
	}
	h.mu.Unlock()
	if started {
		<-h.done
	} else {
		close(h.done)
	}
	h.mu.Lock()
	for sub := range h.subs {
		delete(h.subs, sub)
		close(sub.ch)
	}
	h.mu.Unlock()
}
