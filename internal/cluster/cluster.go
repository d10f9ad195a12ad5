// Package cluster runs one almanac node of several that share a PostgreSQL
// store: it campaigns for the controller lease (package leader), registers
// the node and heart-beats it, turns the store's LISTEN/NOTIFY wake-ups into
// controller nudges, and gates the job controller's writes so that only the
// leader schedules while every node executes runs (ControllerStore).
//
// A node's life:
//
//	           start
//	             │ register in nodes, LISTEN
//	             ▼
//	┌────────► follower ── claims and executes ready runs,
//	│            │          heart-beats them, records their end
//	│            │ lease free or expired: UPDATE ... term+1
//	│            ▼
//	│          leader(term) ── also schedules runs, releases and
//	│            │              prunes them, fails or retries runs
//	│            │              of nodes that stopped heart-beating;
//	│            │              every such write fenced by term
//	│            │ renewal refused or not confirmed within the TTL
//	└────────────┘
//
// A leader that is killed is replaced once its lease expires (TTL), found
// by a follower's next attempt (at most one renew interval later). A leader
// that is paused (SIGSTOP, a long GC pause) and resumes after another node
// took over has every scheduling write refused by the store (stale term)
// and learns at its next renewal that it follows.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/leader"
	"github.com/almanac-sh/almanac/internal/store/pgstore"
)

// Notifier is what the node nudges when something changed in the store:
// the job controller. An empty name means "re-read all jobs"; a name no
// job has just makes it look for claimable runs.
type Notifier interface {
	Notify(name string)
}

// Store is what a node needs of the cluster's PostgreSQL store;
// *pgstore.Store implements it.
type Store interface {
	// Pool is the connection pool the leader election runs on, and
	// LeaseName the election whose term fences the store's writes.
	Pool() *pgxpool.Pool
	LeaseName() string
	// NodeRegister, NodeHeartbeat and NodeRemove keep the node's row.
	NodeRegister(ctx context.Context, n pgstore.Node, ttl time.Duration, dead func(holder pgstore.Node) bool) error
	NodeHeartbeat(ctx context.Context, n pgstore.Node) error
	NodeRemove(ctx context.Context, id, instance string) error
	// Cluster reads every node's row and the lease.
	Cluster(ctx context.Context) (pgstore.Cluster, error)
	// Wakeups signals when other nodes change what the topics name.
	Wakeups(ctx context.Context, topics ...pgstore.Topic) <-chan struct{}
	// Contract runs the schema's contract steps no live node still needs.
	Contract(ctx context.Context, live time.Duration) (pgstore.ContractResult, error)
}

// Config configures a Node.
type Config struct {
	Store Store
	// ID names the node (the runs it claims, its lease holder name); it
	// must be unique in the cluster.
	ID string
	// Address is where its API listens, shown in the cluster view.
	Address string
	// Version is the almanac version, shown in the cluster view.
	Version string
	// Labels are the node's labels (serve's --node-label).
	Labels map[string]string
	// TTL and RenewInterval configure the lease (defaults 5 s and 1 s).
	TTL, RenewInterval time.Duration
	// Instance identifies this process among those that ever acted as
	// node ID (default: random); Host and PID say where it runs (default:
	// this machine's host name and this process's pid). They are how a
	// second process started with the same ID is told apart and refused.
	Instance string
	Host     string
	PID      int
	// PollInterval is a fallback for lost notifications: the controller is
	// nudged to look for claimable runs this often (default 5 s).
	PollInterval time.Duration
	Clock        clock.Clock
	Logger       *slog.Logger
}

// Node is this process's membership of the cluster.
type Node struct {
	cfg     Config
	elector *leader.Elector
	started time.Time

	mu     sync.Mutex
	status leader.Status

	// contractMu guards contracted, set once no contract step is
	// pending, and waiting, the nodes the last pending step waited for
	// (to log a change once).
	contractMu sync.Mutex
	contracted bool
	waiting    string
}

// wakeName is the name Notify gets for "look for claimable runs"; no job
// can have it (job names are validated), so the controller only claims.
const wakeName = "#wake"

// New checks cfg and returns a node; Run starts it.
func New(cfg Config) (*Node, error) {
	if cfg.Store == nil || cfg.ID == "" {
		return nil, fmt.Errorf("cluster: Store and ID are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 5 * time.Second
	}
	if cfg.Instance == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("cluster: instance id: %w", err)
		}
		cfg.Instance = hex.EncodeToString(b[:])
	}
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.PID == 0 {
		cfg.PID = os.Getpid()
	}
	e, err := leader.New(cfg.Store.Pool(), leader.Config{
		Name: cfg.Store.LeaseName(), Holder: cfg.ID, TTL: cfg.TTL, RenewInterval: cfg.RenewInterval,
		Clock: cfg.Clock, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if cfg.TTL == 0 {
		cfg.TTL = leader.DefaultTTL
	}
	if cfg.RenewInterval == 0 {
		cfg.RenewInterval = leader.DefaultRenewInterval
	}
	return &Node{cfg: cfg, elector: e, started: cfg.Clock.Now()}, nil
}

// Register brings the leader election's schema up to date and claims the
// node's ID in the nodes table, before the node does anything else. It fails (with a *pgstore.NodeInUseError) if another
// process holds the ID and heart-beat within the lease TTL: two processes
// acting as one node would each take the other's runs for their own.
func (n *Node) Register(ctx context.Context) error {
	// The election's lease table and the fence the stores' writes call.
	if err := leader.Migrate(ctx, n.cfg.Store.Pool()); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	err := n.cfg.Store.NodeRegister(ctx, n.self(), n.cfg.TTL, n.holderDead)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// holderDead reports whether the process holding the node's row is known
// to be gone: it ran on this host (same host name) and its pid no longer
// exists, or is this process's own pid (a restart in a container where
// almanac always gets the same pid). A crashed node restarted at once is
// then not refused until its old heartbeat ages past the TTL.
func (n *Node) holderDead(holder pgstore.Node) bool {
	if holder.Host != n.cfg.Host || holder.PID <= 0 {
		return false
	}
	if holder.PID == os.Getpid() {
		return true
	}
	return errors.Is(syscall.Kill(holder.PID, 0), syscall.ESRCH)
}

// self is the node's row.
func (n *Node) self() pgstore.Node {
	return pgstore.Node{ID: n.cfg.ID, Address: n.cfg.Address, Version: n.cfg.Version, StartedAt: n.started,
		Instance: n.cfg.Instance, Host: n.cfg.Host, PID: n.cfg.PID, Labels: n.cfg.Labels}
}

// Leading reports whether this node leads now, and its term. It is what
// ControllerStore consults before every scheduling write.
func (n *Node) Leading() (bool, int64) {
	st := n.elector.Status()
	return st.Leader, st.Term
}

// Status returns the node's view of its leadership.
func (n *Node) Status() leader.Status { return n.elector.Status() }

// ID returns the node's ID.
func (n *Node) ID() string { return n.cfg.ID }

// Cluster reads every node and the lease.
func (n *Node) Cluster(ctx context.Context) (pgstore.Cluster, error) {
	return n.cfg.Store.Cluster(ctx)
}

// Run campaigns, heart-beats and forwards wake-ups to ctrl until ctx ends;
// then it resigns the lease (so another node takes over at once) and
// removes the node's row.
func (n *Node) Run(ctx context.Context, ctrl Notifier) error {
	log := n.cfg.Logger
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(3)
	go func() {
		defer wg.Done()
		n.elector.Run(ctx, func(st leader.Status) {
			n.mu.Lock()
			prev := n.status
			n.status = st
			n.mu.Unlock()
			switch {
			case st.Leader && (!prev.Leader || prev.Term != st.Term):
				log.Info("leading the cluster", "node", n.cfg.ID, "term", st.Term)
				// A contraction no live node stands in the way of
				// happens before the controller schedules anything.
				n.contract(ctx)
				// Re-read every job: the previous leader moved them on.
				ctrl.Notify("")
			case !st.Leader && prev.Leader:
				log.Warn("no longer leading the cluster", "node", n.cfg.ID, "term", prev.Term)
			}
		})
	}()
	go func() {
		defer wg.Done()
		n.heartbeat(ctx)
	}()
	go func() {
		defer wg.Done()
		n.forward(ctx, ctrl)
	}()
	<-ctx.Done()
	wg.Wait()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.cfg.RenewInterval)
	defer cancel()
	if err := n.cfg.Store.NodeRemove(rctx, n.cfg.ID, n.cfg.Instance); err != nil {
		log.Warn("could not deregister the node", "err", err)
	}
	return nil
}

// heartbeat refreshes the node's row every renew interval.
func (n *Node) heartbeat(ctx context.Context) {
	t := n.cfg.Clock.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		hctx, cancel := context.WithTimeout(ctx, n.cfg.RenewInterval)
		err := n.cfg.Store.NodeHeartbeat(hctx, n.self())
		cancel()
		switch {
		case errors.Is(err, pgstore.ErrNodeInUse):
			n.cfg.Logger.Error("another process acts as this node; stop one of them", "node", n.cfg.ID, "err", err)
		case err != nil && ctx.Err() == nil:
			n.cfg.Logger.Warn("node heartbeat", "err", err)
		}
		if lead, _ := n.Leading(); lead && err == nil {
			n.contract(ctx)
		}
		t.Reset(n.cfg.RenewInterval)
	}
}

// contract has the leader run the schema's contract steps once no live
// node of an older schema remains (package migrate: expand and contract),
// logging what it ran and, once per change, which nodes it waits for.
func (n *Node) contract(ctx context.Context) {
	n.contractMu.Lock()
	defer n.contractMu.Unlock()
	if n.contracted {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, n.cfg.TTL)
	res, err := n.cfg.Store.Contract(cctx, n.cfg.TTL)
	cancel()
	log := n.cfg.Logger
	if err != nil {
		if ctx.Err() == nil {
			log.Error("schema contraction failed; will try again", "err", err)
		}
		return
	}
	for _, st := range res.Applied {
		log.Info("leader contracted the schema: no live node of an older version remains",
			"migration", "contract/"+st.Name, "to", st.To, "duration", st.Duration)
	}
	if len(res.Pending) == 0 {
		n.contracted = true
		return
	}
	var waiting []string
	for _, b := range res.Blocking {
		waiting = append(waiting, fmt.Sprintf("%s (version %s)", b.ID, b.Version))
	}
	if w := strings.Join(waiting, ", "); w != n.waiting {
		n.waiting = w
		log.Info("schema contraction waits until these nodes run a newer almanac", "step", res.Pending[0], "nodes", w)
	}
}

// forward nudges the controller on wake-ups: job changes make it re-read
// the jobs, new or released runs make it claim. A slow poll covers
// notifications lost while the listener reconnects and runs whose ReadyAt
// lies in the future.
func (n *Node) forward(ctx context.Context, ctrl Notifier) {
	jobs := n.cfg.Store.Wakeups(ctx, pgstore.TopicJobs)
	runs := n.cfg.Store.Wakeups(ctx, pgstore.TopicRuns, pgstore.TopicFinished)
	poll := n.cfg.Clock.NewTimer(n.cfg.PollInterval)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-jobs:
			if !ok {
				return
			}
			ctrl.Notify("")
		case _, ok := <-runs:
			if !ok {
				return
			}
			ctrl.Notify(wakeName)
		case <-poll.C():
			ctrl.Notify(wakeName)
			poll.Reset(n.cfg.PollInterval)
		}
	}
}
