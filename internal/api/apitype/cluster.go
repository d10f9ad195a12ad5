package apitype

import "time"

// Cluster is GET /api/v1/cluster: the nodes sharing the store and who leads.
// A single-node (SQLite) daemon answers with itself as the only node,
// leading in term 0.
type Cluster struct {
	// Leader is the node holding the controller lease; empty if none does.
	Leader string `json:"leader"`
	// Term is the lease's term; it grows each time leadership changes hands.
	Term int64 `json:"term"`
	// LeaseExpiresAt is when the lease lapses unless renewed; null if no
	// node ever led.
	LeaseExpiresAt *time.Time `json:"lease_expires_at"`
	// Self is the node that answered.
	Self string `json:"self"`
	// Now is the database clock, against which to read the other times.
	Now   time.Time     `json:"now"`
	Nodes []ClusterNode `json:"nodes"`
}

// ClusterNode is one almanac process in the cluster.
type ClusterNode struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	Version string `json:"version"`
	// Host and PID say where the process runs (empty and 0 if unknown).
	Host        string    `json:"host,omitempty"`
	PID         int       `json:"pid,omitempty"`
	StartedAt   time.Time `json:"started_at"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	// Leader is true for the node holding an unexpired lease.
	Leader bool `json:"leader"`
	// Labels are the node's --node-label pairs (absent when none).
	Labels map[string]string `json:"labels,omitempty"`
	// Liveness is what the node's heartbeat says of it: NodeAlive,
	// NodeSuspect or NodeDown (see Liveness).
	Liveness string `json:"liveness"`
	// SilentSince is the node's last heartbeat while it is suspect or
	// down: it has not been heard from since then. Absent while alive.
	SilentSince *time.Time `json:"silent_since,omitempty"`
}

// Node liveness, from the age of a node's last heartbeat against the
// cluster lease's TTL (the time a leader may go unheard before another
// node takes over).
const (
	// NodeAlive: the node heart-beat within one TTL.
	NodeAlive = "alive"
	// NodeSuspect: silent for more than one TTL but at most
	// DownAfterTTLs of them; a pause, a slow database or a dying node.
	NodeSuspect = "suspect"
	// NodeDown: silent for more than DownAfterTTLs TTLs. Its running
	// runs are recovered as interrupted; runs for it wait.
	NodeDown = "down"
)

// DownAfterTTLs is how many lease TTLs a node may stay silent before it is
// down rather than suspect.
const DownAfterTTLs = 3

// Liveness judges a node whose last heartbeat was at heartbeat, at now,
// for a cluster whose lease TTL is ttl: its liveness and, unless it is
// alive, since when it is silent. A zero ttl judges every node alive.
func Liveness(now, heartbeat time.Time, ttl time.Duration) (string, *time.Time) {
	age := now.Sub(heartbeat)
	if ttl <= 0 || heartbeat.IsZero() || age <= ttl {
		return NodeAlive, nil
	}
	hb := heartbeat
	if age <= DownAfterTTLs*ttl {
		return NodeSuspect, &hb
	}
	return NodeDown, &hb
}

// SetLiveness sets n's Liveness and SilentSince as Liveness judges them.
func (n *ClusterNode) SetLiveness(now time.Time, ttl time.Duration) {
	n.Liveness, n.SilentSince = Liveness(now, n.HeartbeatAt, ttl)
}

// Node returns the node named id and whether the cluster lists it.
func (c *Cluster) Node(id string) (ClusterNode, bool) {
	for _, n := range c.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return ClusterNode{}, false
}
