// Package audit carries who caused a change, and how, from where a request
// or signal arrives to where the change's events are written.
//
// An entry point (the HTTP API, the web UI, a manifest reload, SIGHUP,
// FleetLock) puts an [Actor] into the context it acts with; the stores stamp
// every event written under that context with it, in the same transaction
// as the change, so the event log says "job x suspended by alice (ui,
// 10.0.0.7)". Work the daemon does on its own (a scheduled run, a retry)
// carries no actor.
package audit

import (
	"context"
	"net"
	"net/http"
)

// Ways a change can arrive (Actor.Via).
const (
	ViaAPI       = "api"       // the HTTP API, by a client other than the CLI
	ViaCLI       = "cli"       // the almanac CLI, through the HTTP API
	ViaUI        = "ui"        // the web UI
	ViaReload    = "reload"    // a manifest reload the daemon started itself
	ViaSIGHUP    = "sighup"    // a reload asked for with SIGHUP
	ViaFleetLock = "fleetlock" // the FleetLock protocol (Zincati)
	ViaStart     = "start"     // the daemon's own start (manifests, --demo)
)

// Actor says who made a change, how it arrived and from where.
type Actor struct {
	// Name is a token's name, "manifest:FILE" or "fleetlock:ID".
	Name string
	// Via is how the change arrived: one of the Via constants.
	Via string
	// Remote is the client's address (host only), when there is a client.
	Remote string
}

type actorKey struct{}

// With returns ctx carrying a. If ctx has a recorder (WithRecorder), a is
// also written to it: the access log learns who a request acted as.
func With(ctx context.Context, a Actor) context.Context {
	if rec, ok := ctx.Value(recorderKey{}).(*Actor); ok {
		*rec = a
	}
	return context.WithValue(ctx, actorKey{}, a)
}

type recorderKey struct{}

// WithRecorder returns ctx in which With also writes the actor to *rec.
// One request is served by one goroutine, so *rec needs no lock.
func WithRecorder(ctx context.Context, rec *Actor) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

// From returns the actor ctx carries, and whether it carries one.
func From(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// String reads the actor as the log shows it: "alice (ui, 10.0.0.7)".
func (a Actor) String() string {
	if a.Name == "" {
		return ""
	}
	s := a.Name
	switch {
	case a.Via != "" && a.Remote != "":
		s += " (" + a.Via + ", " + a.Remote + ")"
	case a.Via != "":
		s += " (" + a.Via + ")"
	case a.Remote != "":
		s += " (" + a.Remote + ")"
	}
	return s
}

// Remote is the address r came from, without its port: Actor.Remote for
// a request. It is the TCP peer; X-Forwarded-For is not trusted (behind a
// proxy it is the proxy's address).
func Remote(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
