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
// can: BASE may carry a per-group secret (/fleetlock/SECRET/), or the
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
	"slices"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/audit"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleetlock/groupname"
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
	// Secret, if set, lets clients authenticate with the base URL /fleetlock/SECRET/.
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

// Server is the FleetLock http.Handler, mounted at /fleetlock/. It is
// also a prometheus.Collector of its slots, grants and refusals.
type Server struct {
	cfg     Config
	metrics metrics
	episodes
}

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
	return &Server{cfg: cfg, metrics: newMetrics(), episodes: episodes{last: map[episodeKey]string{}}}
}

// Event kinds the server records.
const (
	EventLocked   = store.EventRebootLocked
	EventUnlocked = store.EventRebootUnlocked
	EventHeldLong = store.EventRebootHeldLong
)

// maxBody bounds a request body; the real ones are under 100 bytes.
const maxBody = 4 << 10

// ValidGroup reports whether name is a valid reboot group name: the
// protocol's ^[a-zA-Z0-9.-]+$, at most 128 characters.
func ValidGroup(name string) bool { return groupname.Valid(name) }

// idRE is the shape of a client id: a machine id (hex), a UUID or a host
// name. Nothing a terminal would interpret.
var idRE = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._:-]*$`)

// MaxIDLen bounds a client id, in bytes.
const MaxIDLen = 255

// ValidID checks a client id: 1 to MaxIDLen bytes of letters, digits, and
// . _ : - (a machine id, a UUID or a host name), starting with a letter or
// a digit.
func ValidID(id string) error {
	switch {
	case id == "" || len(id) > MaxIDLen:
		return fmt.Errorf("must be 1 to %d bytes", MaxIDLen)
	case !idRE.MatchString(id):
		return errors.New("must be a machine id or host name: letters, digits and . _ : - only, starting with a letter or digit")
	}
	return nil
}

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

// ServeHTTP answers /fleetlock/[SECRET/]v1/pre-reboot and …/steady-state,
// and, with a FleetLock error, any other request routed here (see
// Intercept).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var c call
	err := s.serve(w, r, &c)
	var pe *protocolError
	if err == nil {
		return
	}
	if !errors.As(err, &pe) {
		s.cfg.Logger.Error("fleetlock", "path", r.URL.Path, "err", err)
		pe = fail(http.StatusInternalServerError, "internal", "the server failed; see its log")
	}
	s.refused(r, &c, pe)
	w.Header().Set("Content-Type", "application/json")
	if pe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	w.WriteHeader(pe.status)
	json.NewEncoder(w).Encode(pe)
}

// call is who an authenticated request says it is; empty before.
type call struct{ id, group string }

func (s *Server) serve(w http.ResponseWriter, r *http.Request, c *call) error {
	secret, op, err := endpoint(r.URL.Path)
	if err != nil {
		return err
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
	if err := ValidID(id); err != nil {
		return fail(http.StatusBadRequest, "invalid_request", "client_params.id: %v", err)
	}
	if !ValidGroup(name) {
		return fail(http.StatusBadRequest, "invalid_request", "client_params.group %q must match ^[a-zA-Z0-9.-]+$ (at most 128 characters)", name)
	}
	// Authenticate before looking the group up, so that a client without
	// the secret cannot tell which groups exist.
	g, known := s.group(name)
	if !s.authorized(r, g, known, secret) {
		return fail(http.StatusForbidden, "unauthorized", "this client may not use reboot group %q: the secret in the URL is wrong, or there is none and the address is not allowed; "+
			"a base URL with a secret must end in a slash (http://HOST/fleetlock/SECRET/), or the client drops the secret", name)
	}
	// Only now are the id and group worth a log line of their own.
	c.id, c.group = id, name
	if !known {
		return fail(http.StatusNotFound, "unknown_group", "no reboot group %q is configured", name)
	}
	// The slot's events name the member and where it called from.
	ctx := audit.With(r.Context(), audit.Actor{Name: "fleetlock:" + id, Via: audit.ViaFleetLock, Remote: audit.Remote(r)})
	if op == opSteady {
		err = s.unlock(ctx, g, id)
	} else {
		err = s.lock(ctx, g, id)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// ErrSlotRefused is wrapped by Acquire's error when the group's slots are
// all taken or its window is closed: asking again later may succeed.
var ErrSlotRefused = errors.New("reboot slot refused")

// Acquire takes a slot of group for holder as a FleetLock pre-reboot
// would: inside the group's window, while a slot is free; a holder asking
// again keeps its slot. Job runs that reboot their node take their slot
// this way (docs/fleet-jobs.md), so they and Zincati share the group.
func (s *Server) Acquire(ctx context.Context, group, holder string) error {
	g, ok := s.group(group)
	if !ok {
		return fmt.Errorf("no reboot group %q is configured", group)
	}
	err := s.lock(ctx, g, holder)
	var pe *protocolError
	if errors.As(err, &pe) && pe.status == http.StatusConflict {
		return fmt.Errorf("%w: %s", ErrSlotRefused, pe.Value)
	}
	return err
}

// Release gives holder's slot of group back, as a FleetLock steady-state
// would; releasing a slot not held is not an error.
func (s *Server) Release(ctx context.Context, group, holder string) error {
	g, ok := s.group(group)
	if !ok {
		return fmt.Errorf("no reboot group %q is configured", group)
	}
	return s.unlock(ctx, g, holder)
}

// The two operations.
const (
	opPre    = "v1/pre-reboot"
	opSteady = "v1/steady-state"
)

// endpoint splits a request path into the secret (if any) and the
// operation, or explains why the path is not a FleetLock endpoint. Zincati
// joins "v1/pre-reboot" to its base URL as a relative reference, which
// replaces the base's last segment when it lacks a trailing slash: a base
// of http://HOST/fleetlock calls /v1/pre-reboot, and one of
// http://HOST/fleetlock/SECRET calls /fleetlock/v1/pre-reboot.
func endpoint(path string) (secret, op string, err error) {
	if path == "/"+opPre || path == "/"+opSteady {
		return "", "", fail(http.StatusNotFound, "missing_trailing_slash",
			"%s is not a FleetLock endpoint: the base URL lacks its trailing slash, so the client dropped its last segment; configure it as http://HOST/fleetlock/ (or http://HOST/fleetlock/SECRET/)", path)
	}
	rest, ok := strings.CutPrefix(path, "/fleetlock/")
	if ok {
		op = rest
		if i := strings.Index(rest, "/v1/"); i > 0 {
			secret, op = rest[:i], rest[i+1:]
		}
		if op == opPre || op == opSteady {
			return secret, op, nil
		}
	}
	return "", "", fail(http.StatusNotFound, "not_found",
		"no FleetLock endpoint at %s: want BASE/v1/pre-reboot or BASE/v1/steady-state, with the base URL http://HOST/fleetlock/ or http://HOST/fleetlock/SECRET/ (its trailing slash included)", path)
}

// Intercept sends to s every request that carries the fleet-lock-protocol
// header outside /fleetlock/ (there next is expected to route to s), so
// that a FleetLock client always gets a FleetLock answer, never another
// handler's HTML; other requests go to next.
func (s *Server) Intercept(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("fleet-lock-protocol"), "true") && !strings.HasPrefix(r.URL.Path, "/fleetlock/") {
			s.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// unlock releases id's slot; the event is written only when it held one.
func (s *Server) unlock(ctx context.Context, g Group, id string) error {
	held, err := s.holds(ctx, g.Name, id)
	if err != nil {
		return err
	}
	if err := s.cfg.Store.RebootLockRelease(ctx, g.Name, id); err != nil {
		return err
	}
	s.settled(id, g.Name)
	if held {
		s.record(ctx, EventUnlocked, g.Name, "%s released its reboot slot in group %s", id, g.Name)
	}
	return nil
}

// lock grants a slot when the group's window is open and a slot is free;
// a holder asking again keeps its slot even after the window closed. The
// event is written only when the slot is new.
func (s *Server) lock(ctx context.Context, g Group, id string) error {
	now := s.cfg.Clock.Now()
	held, err := s.holds(ctx, g.Name, id)
	if err != nil {
		return err
	}
	if g.Window != "" && !held {
		win, ok := s.cfg.Windows(g.Window)
		if !ok {
			return fail(http.StatusServiceUnavailable, "unknown_window", "reboot group %q names window %q, which is not defined", g.Name, g.Window)
		}
		if !win.Contains(now) {
			next := "it never opens again"
			if t, ok := win.NextOpen(now); ok {
				next = "it opens next at " + t.Format(time.RFC3339)
			}
			return fail(http.StatusConflict, "outside_window", "reboot group %q reboots only inside window %q; %s", g.Name, g.Window, next)
		}
	}
	granted, err := s.cfg.Store.RebootLockAcquire(ctx, store.RebootLockParams{Group: g.Name, Holder: id, Max: g.Max, Now: now})
	if err != nil {
		return err
	}
	if !granted {
		return fail(http.StatusConflict, "failed_lock_semaphore_full", "all %d reboot slots of group %q are taken", g.Max, g.Name)
	}
	s.settled(id, g.Name)
	if !held {
		s.metrics.grants.WithLabelValues(g.Name).Inc()
		s.record(ctx, EventLocked, g.Name, "%s holds a reboot slot in group %s", id, g.Name)
	}
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

// Groups lists the names of the configured reboot groups, sorted.
func (s *Server) Groups() []string {
	var out []string
	for _, g := range s.cfg.Groups() {
		out = append(out, g.Name)
	}
	slices.Sort(out)
	return out
}

func (s *Server) group(name string) (Group, bool) {
	for _, g := range s.cfg.Groups() {
		if g.Name == name {
			return g, true
		}
	}
	return Group{}, false
}

// authorized checks the secret in the URL against the group's (a group
// that is not known has none), or else the client's address.
func (s *Server) authorized(r *http.Request, g Group, known bool, secret string) bool {
	if secret != "" {
		return known && g.Secret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(g.Secret)) == 1
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
