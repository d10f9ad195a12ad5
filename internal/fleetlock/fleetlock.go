// Package fleetlock serves the FleetLock protocol that Zincati's
// fleet_lock update strategy speaks, so that machines of a reboot group
// take turns rebooting: at most Max at once, and, when the group has a
// window, only while that window is open.
//
// A client POSTs {"client_params":{"id":…,"group":…}} with the header
// fleet-lock-protocol: true to BASE/v1/pre-reboot before it reboots (200
// grants a slot, re-entrantly) and to BASE/v1/steady-state once it is back
// (200 releases the slot; releasing a slot not held is fine). Errors are
// {"kind":…,"value":…} with a 4xx or 5xx status. Slots are kept in the
// store, so they survive restarts and, on PostgreSQL, are shared by every
// node.
//
// Zincati cannot send a bearer token, so the endpoints authenticate as it
// can: BASE may carry a per-group secret (/fleetlock/SECRET), or the
// client's address must be in an allow-list.
package fleetlock

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// Group is a reboot group.
type Group struct {
	Name string
	// Max is how many members may hold a slot at once.
	Max int
	// Window, if set, names the window (a named window or a manifest
	// schedule) outside which no new slot is granted.
	Window string
	// Secret, if set, lets clients authenticate with /fleetlock/SECRET.
	Secret string
	// MaxHold is how long a slot may be held before it is reported
	// (never broken); zero means the server's default.
	MaxHold time.Duration
}

// Window is what a group's window answers; job.Gate satisfies it.
type Window interface {
	Contains(t time.Time) bool
	NextOpen(t time.Time) (time.Time, bool)
}

// Store is where slots are kept; the daemon's store satisfies it.
type Store interface {
	RebootLockAcquire(ctx context.Context, p store.RebootLockParams) (bool, error)
	RebootLockRelease(ctx context.Context, group, holder string) error
	RebootLocks(ctx context.Context) ([]store.RebootLock, error)
	EventAppend(ctx context.Context, events ...store.Event) error
}

// Config configures a Server.
type Config struct {
	// Groups returns the groups configured now (flags and manifests).
	Groups func() []Group
	// Windows finds a window by name.
	Windows func(name string) (Window, bool)
	Store   Store
	Clock   clock.Clock
	Logger  *slog.Logger
	// Allow lists the client networks that may call the endpoints without
	// a secret in the URL.
	Allow []netip.Prefix
	// MaxHold is the default for groups without their own (default 2 h).
	MaxHold time.Duration
	// Alert, if set, is told about slots held past their MaxHold.
	Alert func(ctx context.Context, subject, body string)
}

// Server is the FleetLock http.Handler, mounted at /fleetlock/.
type Server struct{ cfg Config }

// New returns a Server for cfg.
func New(cfg Config) *Server {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxHold <= 0 {
		cfg.MaxHold = 2 * time.Hour
	}
	return &Server{cfg: cfg}
}

// Event kinds the server records.
const (
	EventLocked   = store.EventRebootLocked
	EventUnlocked = store.EventRebootUnlocked
	EventHeldLong = store.EventRebootHeldLong
)

// maxBody bounds a request body; the real ones are under 100 bytes.
const maxBody = 4 << 10

// groupRE is the protocol's rule for group names.
var groupRE = regexp.MustCompile(`^[a-zA-Z0-9.-]+$`)

// protocolError is the protocol's error body.
type protocolError struct {
	status int
	Kind   string `json:"kind"`
	Value  string `json:"value"`
}

func (e *protocolError) Error() string { return e.Kind + ": " + e.Value }

func fail(status int, kind, format string, a ...any) *protocolError {
	return &protocolError{status: status, Kind: kind, Value: fmt.Sprintf(format, a...)}
}

// request is the protocol's body.
type request struct {
	ClientParams struct {
		ID    string `json:"id"`
		Group string `json:"group"`
	} `json:"client_params"`
}

// ServeHTTP answers /fleetlock/[SECRET/]v1/pre-reboot and …/steady-state.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	err := s.serve(w, r)
	var pe *protocolError
	if err == nil {
		return
	}
	if !errors.As(err, &pe) {
		s.cfg.Logger.Error("fleetlock", "path", r.URL.Path, "err", err)
		pe = fail(http.StatusInternalServerError, "internal", "the server failed; see its log")
	}
	w.Header().Set("Content-Type", "application/json")
	if pe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	w.WriteHeader(pe.status)
	json.NewEncoder(w).Encode(pe)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) error {
	rest := strings.TrimPrefix(r.URL.Path, "/fleetlock/")
	secret, op := "", rest
	if i := strings.Index(rest, "/v1/"); i > 0 {
		secret, op = rest[:i], rest[i+1:]
	}
	if op != "v1/pre-reboot" && op != "v1/steady-state" {
		return fail(http.StatusNotFound, "not_found", "no FleetLock endpoint at %s (want BASE/v1/pre-reboot or BASE/v1/steady-state)", r.URL.Path)
	}
	if r.Method != http.MethodPost {
		return fail(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed; FleetLock requests are POST", r.Method)
	}
	if r.Header.Get("fleet-lock-protocol") != "true" {
		return fail(http.StatusBadRequest, "missing_header", "the fleet-lock-protocol: true header is missing")
	}
	var req request
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return fail(http.StatusRequestEntityTooLarge, "invalid_request", "the body is larger than %d bytes", maxBody)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return fail(http.StatusBadRequest, "invalid_request", "the body is not a FleetLock JSON object: %v", err)
	}
	id, name := req.ClientParams.ID, req.ClientParams.Group
	switch {
	case id == "" || len(id) > 256:
		return fail(http.StatusBadRequest, "invalid_request", "client_params.id must be 1 to 256 characters")
	case !groupRE.MatchString(name) || len(name) > 128:
		return fail(http.StatusBadRequest, "invalid_request", "client_params.group %q must match ^[a-zA-Z0-9.-]+$", name)
	}
	g, ok := s.group(name)
	if !ok {
		return fail(http.StatusNotFound, "unknown_group", "no reboot group %q is configured", name)
	}
	if !s.authorized(r, g, secret) {
		return fail(http.StatusForbidden, "unauthorized", "this client may not use reboot group %q (wrong secret in the URL, or an address not allowed)", name)
	}
	ctx := r.Context()
	if op == "v1/steady-state" {
		if err := s.cfg.Store.RebootLockRelease(ctx, g.Name, id); err != nil {
			return err
		}
		s.record(ctx, EventUnlocked, g.Name, "%s released its reboot slot in group %s", id, g.Name)
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return s.lock(ctx, w, g, id)
}

// lock grants a slot when the group's window is open and a slot is free;
// a holder asking again keeps its slot even after the window closed.
func (s *Server) lock(ctx context.Context, w http.ResponseWriter, g Group, id string) error {
	now := s.cfg.Clock.Now()
	if g.Window != "" {
		win, ok := s.cfg.Windows(g.Window)
		if !ok {
			return fail(http.StatusServiceUnavailable, "unknown_window", "reboot group %q names window %q, which is not defined", g.Name, g.Window)
		}
		if !win.Contains(now) {
			held, err := s.holds(ctx, g.Name, id)
			if err != nil {
				return err
			}
			if !held {
				next := "it never opens again"
				if t, ok := win.NextOpen(now); ok {
					next = "it opens next at " + t.Format(time.RFC3339)
				}
				return fail(http.StatusConflict, "outside_window", "reboot group %q reboots only inside window %q; %s", g.Name, g.Window, next)
			}
		}
	}
	granted, err := s.cfg.Store.RebootLockAcquire(ctx, store.RebootLockParams{Group: g.Name, Holder: id, Max: g.Max, Now: now})
	if err != nil {
		return err
	}
	if !granted {
		return fail(http.StatusConflict, "failed_lock_semaphore_full", "all %d reboot slots of group %q are taken", g.Max, g.Name)
	}
	s.record(ctx, EventLocked, g.Name, "%s holds a reboot slot in group %s", id, g.Name)
	w.WriteHeader(http.StatusOK)
	return nil
}

// holds reports whether id holds a slot in group.
func (s *Server) holds(ctx context.Context, group, id string) (bool, error) {
	locks, err := s.cfg.Store.RebootLocks(ctx)
	if err != nil {
		return false, err
	}
	for _, l := range locks {
		if l.Group == group && l.Holder == id {
			return true, nil
		}
	}
	return false, nil
}

func (s *Server) group(name string) (Group, bool) {
	for _, g := range s.cfg.Groups() {
		if g.Name == name {
			return g, true
		}
	}
	return Group{}, false
}

// authorized checks the secret in the URL, or else the client's address.
func (s *Server) authorized(r *http.Request, g Group, secret string) bool {
	if secret != "" {
		return g.Secret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(g.Secret)) == 1
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	for _, p := range s.cfg.Allow {
		if p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}

// record appends an event; a failure is only logged.
func (s *Server) record(ctx context.Context, kind store.EventKind, group, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	s.cfg.Logger.Info(msg, "group", group)
	if err := s.cfg.Store.EventAppend(ctx, store.Event{Time: s.cfg.Clock.Now(), Kind: kind, Resource: "reboot-group/" + group, Message: msg}); err != nil {
		s.cfg.Logger.Error("fleetlock: record event", "err", err)
	}
}
