package fleetlock_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/fleetlock"
	"github.com/almanac-sh/almanac/internal/store"
)

// loginPage stands for the web UI: HTML and 401 for anything it does not
// know, which is what a FleetLock client must never see.
var loginPage = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	io.WriteString(w, "<!doctype html><title>Sign in</title>")
})

// daemonLike mounts s as the daemon does: /fleetlock/ beside a web UI,
// with Intercept in front.
func daemonLike(t *testing.T, s *fleetlock.Server) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/fleetlock/", s)
	mux.Handle("/", loginPage)
	srv := httptest.NewServer(s.Intercept(mux))
	t.Cleanup(srv.Close)
	return srv
}

// zincatiRequest is the request Zincati's fleet_lock client writes, byte
// for byte: reqwest joins the operation to the base URL as a relative
// reference (RFC 3986, as Go's ResolveReference), sends lower-case
// headers, no Content-Type, and the body serde_json::to_string_pretty
// makes of {client_params: {id, group}}.
func zincatiRequest(t *testing.T, base, op, id, group string) (path string, raw []byte) {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u := b.ResolveReference(&url.URL{Path: "v1/" + op})
	body := "{\n  \"client_params\": {\n    \"id\": \"" + id + "\",\n    \"group\": \"" + group + "\"\n  }\n}"
	raw = fmt.Appendf(nil, "POST %s HTTP/1.1\r\nfleet-lock-protocol: true\r\naccept: */*\r\nhost: %s\r\ncontent-length: %d\r\n\r\n%s",
		u.RequestURI(), u.Host, len(body), body)
	return u.Path, raw
}

// replay writes raw to the server and reads its answer.
func replay(t *testing.T, srv *httptest.Server, raw []byte) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestZincatiReplay replays Zincati's requests for base URLs with and
// without their trailing slash. Every answer to a FleetLock request is
// FleetLock JSON; a path that shows a dropped segment says so.
func TestZincatiReplay(t *testing.T) {
	const machine = "e0f3745b108f471cbd4883c6fbed8cdd" // Zincati's app-specific machine id
	tests := []struct {
		name  string
		allow bool
		base  string
		path  string
		code  int
		kind  string
		value string
	}{
		{"secret with its slash", false, "/fleetlock/s3cret/", "/fleetlock/s3cret/v1/pre-reboot", 200, "", ""},
		{"secret without its slash", false, "/fleetlock/s3cret", "/fleetlock/v1/pre-reboot", 403, "unauthorized", "must end in a slash"},
		{"allow-list with the slash", true, "/fleetlock/", "/fleetlock/v1/pre-reboot", 200, "", ""},
		{"allow-list without the slash", true, "/fleetlock", "/v1/pre-reboot", 404, "missing_trailing_slash", "lacks its trailing slash"},
		{"no slash, not allowed", false, "/fleetlock", "/v1/pre-reboot", 404, "missing_trailing_slash", "http://HOST/fleetlock/"},
		{"somewhere else entirely", true, "/other/", "/other/v1/pre-reboot", 404, "not_found", "trailing slash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			cfg := fleetlock.Config{
				Groups: func() []fleetlock.Group { return groups },
				Store:  openSQLite(t, clk), Clock: clk,
			}
			if tt.allow {
				cfg.Allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
			}
			srv := daemonLike(t, fleetlock.New(cfg))
			path, raw := zincatiRequest(t, srv.URL+tt.base, "pre-reboot", machine, "workers")
			if path != tt.path {
				t.Fatalf("Zincati would call %s, the test expects %s", path, tt.path)
			}
			resp, body := replay(t, srv, raw)
			if resp.StatusCode != tt.code {
				t.Fatalf("%s = %d %s, want %d", path, resp.StatusCode, body, tt.code)
			}
			if tt.code == 200 {
				return
			}
			var e map[string]string
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" || json.Unmarshal(body, &e) != nil {
				t.Fatalf("%s answered %s %q, want FleetLock JSON", path, ct, body)
			}
			if e["kind"] != tt.kind || !strings.Contains(e["value"], tt.value) {
				t.Errorf("%s = %v, want kind %s with %q", path, e, tt.kind, tt.value)
			}
		})
	}
}

// TestAuthenticateFirst: without the right secret a client cannot tell a
// group that exists from one that does not.
func TestAuthenticateFirst(t *testing.T) {
	clk := clock.NewFake(t0)
	srv := daemonLike(t, fleetlock.New(fleetlock.Config{
		Groups: func() []fleetlock.Group { return groups }, Store: openSQLite(t, clk), Clock: clk,
	}))
	for _, group := range []string{"workers", "no-such-group"} {
		code, e := zincati(t, srv.URL+"/fleetlock/guess", "pre-reboot", "m1", group, true)
		if code != 403 || e["kind"] != "unauthorized" || strings.Contains(e["value"], "configured") {
			t.Errorf("group %s with a wrong secret: %d %v, want 403 unauthorized", group, code, e)
		}
	}
}

// TestClientIDs: ids that a terminal would interpret, or that are too
// long, are refused; machine ids and host names pass.
func TestClientIDs(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"e0f3745b108f471cbd4883c6fbed8cdd", true},
		{"node-1.example.com", true},
		{"6f1c1e0a-3c8e-4d7e-9b1a-2f0e4c7d8a9b", true},
		{strings.Repeat("a", 255), true},
		{strings.Repeat("a", 256), false},
		{"", false},
		{"\x1b]0;pwned\a\x1b[2J", false},
		{"node 1", false},
		{"nöde", false},
		{"-flag", false},
	}
	clk := clock.NewFake(t0)
	srv := newServer(t, openSQLite(t, clk), clk)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.20q", tt.id), func(t *testing.T) {
			if err := fleetlock.ValidID(tt.id); (err == nil) != tt.ok {
				t.Fatalf("ValidID(%q) = %v, want ok %v", tt.id, err, tt.ok)
			}
			if tt.ok {
				return
			}
			body, _ := json.Marshal(map[string]any{"client_params": map[string]string{"id": tt.id, "group": "workers"}})
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/fleetlock/s3cret/v1/pre-reboot", bytes.NewReader(body))
			req.Header.Set("fleet-lock-protocol", "true")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 400 {
				t.Errorf("id %q: %d, want 400", tt.id, resp.StatusCode)
			}
		})
	}
}

// TestEventsOnTransitions: asking again for a held slot, or releasing a
// slot not held, records nothing.
func TestEventsOnTransitions(t *testing.T) {
	clk := clock.NewFake(t0)
	db := openSQLite(t, clk)
	st := &events{Store: db}
	srv := newServer(t, st, clk)
	base := srv.URL + "/fleetlock"
	for _, step := range []struct{ op, id string }{
		{"steady-state", "never-held"},
		{"pre-reboot", "m1"},
		{"pre-reboot", "m1"},
		{"pre-reboot", "m1"},
		{"steady-state", "m1"},
		{"steady-state", "m1"},
	} {
		if code, e := zincati(t, base, step.op, step.id, "default", true); code != 200 {
			t.Fatalf("%s %s: %d %v", step.op, step.id, code, e)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	want := []store.EventKind{fleetlock.EventLocked, fleetlock.EventUnlocked}
	if fmt.Sprint(st.kind) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v", st.kind, want)
	}
	// Each names the member and where it called from.
	evs, _, err := db.EventList(context.Background(), store.EventListParams{Actor: "fleetlock:m1"})
	if err != nil || len(evs) != 2 {
		t.Fatalf("events by fleetlock:m1 = %+v, %v; want 2", evs, err)
	}
	for _, e := range evs {
		if e.Via != "fleetlock" || e.Remote != "127.0.0.1" {
			t.Errorf("event %s: via %q from %q; want fleetlock from 127.0.0.1", e.Kind, e.Via, e.Remote)
		}
	}
}

// TestRefusalsLoggedOncePerEpisode: a client retrying while the group is
// full is logged once; another reason, or a new episode after a grant,
// is logged again. The metrics count every refusal.
func TestRefusalsLoggedOncePerEpisode(t *testing.T) {
	clk := clock.NewFake(t0)
	var logs bytes.Buffer
	s := fleetlock.New(fleetlock.Config{
		Groups:  func() []fleetlock.Group { return groups },
		Windows: func(name string) (fleetlock.Window, bool) { return weekend{}, name == "weekend" },
		Store:   openSQLite(t, clk), Clock: clk,
		Allow:  []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	srv := daemonLike(t, s)
	base := srv.URL + "/fleetlock"
	call := func(op, id string) {
		t.Helper()
		zincati(t, base, op, id, "default", true)
	}
	call("pre-reboot", "m1")
	for range 5 {
		call("pre-reboot", "m2") // full
	}
	for i := range 3 {
		// unauthorized, with an invented id each time: still one episode
		zincati(t, srv.URL+"/fleetlock/guess", "pre-reboot", fmt.Sprintf("intruder-%d", i), "default", true)
	}
	call("steady-state", "m1")
	call("pre-reboot", "m2")
	call("pre-reboot", "m3") // full again: a new client, a new episode
	if n := strings.Count(logs.String(), "fleetlock: refused"); n != 3 {
		t.Errorf("%d refusal lines, want 3:\n%s", n, logs.String())
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(s)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			name := f.GetName()
			for _, l := range m.GetLabel() {
				name += "," + l.GetValue()
			}
			got[name] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	want := map[string]float64{
		"almanac_fleetlock_refusals_total,failed_lock_semaphore_full": 6,
		"almanac_fleetlock_refusals_total,unauthorized":               3,
		"almanac_fleetlock_grants_total,default":                      2,
		"almanac_fleetlock_slots_held,default":                        1,
		"almanac_fleetlock_slots_max,default":                         1,
		"almanac_fleetlock_slots_max,workers":                         2,
		"almanac_fleetlock_slots_held,workers":                        0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
