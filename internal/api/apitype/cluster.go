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
}
