package apitype

import (
	"encoding/json"
	"time"
)

// Event is one entry of the append-only event log: something that happened to
// a job or a run, with a reason.
type Event struct {
	ID   int64     `json:"id"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`
	Job  string    `json:"job,omitempty"`
	// Resource names a subject other than a job (a managed resource, a node).
	Resource string `json:"resource,omitempty"`
	RunID    int64  `json:"run_id,omitempty"`
	// Message is the human-readable reason ("skipped: previous run active").
	Message string `json:"message,omitempty"`
	// Data holds kind-specific details, such as the count and first/last
	// instants of a missed event.
	Data json.RawMessage `json:"data,omitempty"`
	// Actor is who caused the event: a token's name, "manifest:FILE" or
	// "fleetlock:ID"; empty for what the daemon did on its own.
	Actor string `json:"actor,omitempty"`
	// Via is how the change arrived: api, cli, ui, reload, sighup,
	// fleetlock or start.
	Via string `json:"via,omitempty"`
	// Remote is the client's address, when there was a client.
	Remote string `json:"remote,omitempty"`
}

// Page is one page of a list, newest first for runs and events. NextPage, when
// set, is passed as ?page= to get the next page; it is opaque to clients.
type Page[T any] struct {
	Items    []T    `json:"items"`
	NextPage string `json:"next_page,omitempty"`
}

// Health is the body of GET /healthz.
type Health struct {
	// Status is "ok", or "degraded" (with status 503) while a fault needs
	// an operator, such as store writes failing.
	Status  string `json:"status"`
	Version string `json:"version,omitempty"`
	// Revision is the VCS commit the daemon was built from, when known.
	Revision string `json:"revision,omitempty"`
	// GoVersion is the Go toolchain that built the daemon.
	GoVersion string `json:"go_version,omitempty"`
	// Reason says what is wrong when Status is not "ok".
	Reason string `json:"reason,omitempty"`
	// Notes are things an operator should know that do not make the
	// daemon degraded, such as a recent step of the wall clock.
	Notes []string `json:"notes,omitempty"`
}
