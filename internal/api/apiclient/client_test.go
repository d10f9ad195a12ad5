package apiclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/api/apitest"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

var t0 = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

func newDaemon(t *testing.T, token string) (*apitest.MemStore, string) {
	t.Helper()
	st := apitest.NewMemStore()
	srv := httpapi.New(httpapi.Config{Store: st, Controller: &apitest.Controller{St: st, Now: t0}, Clock: clock.NewFake(t0), Token: token})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return st, ts.URL
}

func TestClientRoundTrip(t *testing.T) {
	t.Parallel()
	st, url := newDaemon(t, "tok")
	ctx := context.Background()
	c, err := apiclient.New(url, apiclient.WithToken("tok"))
	if err != nil {
		t.Fatal(err)
	}
	if h, err := c.Health(ctx); err != nil || h.Status != "ok" {
		t.Fatalf("Health = %+v, %v", h, err)
	}
	spec := apitype.JobSpec{Cron: "*/5 * * * *", Command: apitype.Command{Argv: []string{"echo", "hi"}}}
	j, created, err := c.JobPut(ctx, "ping", spec)
	if err != nil || !created || j.Name != "ping" {
		t.Fatalf("JobPut = %+v, %v, %v", j, created, err)
	}
	if _, created, err = c.JobPut(ctx, "ping", spec); err != nil || created {
		t.Fatalf("second JobPut created=%v err=%v", created, err)
	}
	run, err := c.JobTrigger(ctx, "ping")
	if err != nil || run.Reason != "manual" {
		t.Fatalf("JobTrigger = %+v, %v", run, err)
	}
	if j, err = c.JobSuspend(ctx, "ping"); err != nil || !j.Spec.Suspend {
		t.Fatalf("JobSuspend = %+v, %v", j, err)
	}
	if j, err = c.JobResume(ctx, "ping"); err != nil || j.Spec.Suspend {
		t.Fatalf("JobResume = %+v, %v", j, err)
	}
	st.AddRun(store.Run{Job: "ping", ScheduledTime: t0, State: store.RunSucceeded, Attempt: 1, Output: []byte("hi\n")})
	runs, err := c.RunList(ctx, apiclient.RunFilter{Job: "ping", States: []string{"succeeded"}})
	if err != nil || len(runs.Items) != 1 {
		t.Fatalf("RunList = %+v, %v", runs, err)
	}
	out, state, err := c.RunLog(ctx, runs.Items[0].ID)
	if err != nil || string(out) != "hi\n" || state != "succeeded" {
		t.Fatalf("RunLog = %q %q %v", out, state, err)
	}
	evs, err := c.EventList(ctx, apiclient.EventFilter{Job: "ping", Kinds: []string{"job"}})
	if err != nil || len(evs.Items) != 3 || evs.Items[0].Kind != "job.resumed" {
		t.Fatalf("EventList = %+v, %v", evs, err)
	}
	all, err := c.JobListAll(ctx)
	if err != nil || len(all) != 1 {
		t.Fatalf("JobListAll = %v, %v", all, err)
	}
	if err := c.JobDelete(ctx, "ping"); err != nil {
		t.Fatal(err)
	}
	_, err = c.JobGet(ctx, "ping")
	if !apiclient.IsNotFound(err) || !strings.Contains(err.Error(), `job "ping" not found`) {
		t.Fatalf("JobGet after delete: %v", err)
	}
}

func TestClientErrors(t *testing.T) {
	t.Parallel()
	_, url := newDaemon(t, "tok")
	ctx := context.Background()

	c, _ := apiclient.New(url) // no token
	_, err := c.JobList(ctx, "")
	var ae *apiclient.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || ae.API.Code != apitype.CodeUnauthorized {
		t.Fatalf("without token: %v", err)
	}

	c, _ = apiclient.New(url, apiclient.WithToken("tok"))
	_, _, err = c.JobPut(ctx, "x", apitype.JobSpec{Cron: "* * * * *"})
	if !errors.As(err, &ae) || ae.Status != 422 || ae.API.Field != "command" || !strings.HasPrefix(err.Error(), "command: ") {
		t.Fatalf("bad spec: %v", err)
	}

	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	c, _ = apiclient.New(dead)
	_, err = c.Health(ctx)
	var ue *apiclient.UnreachableError
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "cannot reach daemon at "+dead+": ") {
		t.Fatalf("dead daemon: %v", err)
	}

	// Something that is not almanac.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>nope</html>", http.StatusBadGateway)
	}))
	defer other.Close()
	c, _ = apiclient.New(other.URL)
	if _, err = c.Health(ctx); !errors.As(err, &ae) || ae.Status != 502 || !strings.Contains(err.Error(), "an almanac daemon?") {
		t.Fatalf("foreign server: %v", err)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{"", "http://127.0.0.1:8080", false},
		{"localhost:9000", "http://localhost:9000", false},
		{"https://almanac.example/prefix/", "https://almanac.example/prefix", false},
		{"ftp://x", "", true},
		{"http://", "", true},
		{"http://x/?a=b", "", true},
		{"http://[::1", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := apiclient.New(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("New(%q) = %v, want error", tt.in, c.Server())
				}
				return
			}
			if err != nil || c.Server() != tt.want {
				t.Fatalf("New(%q) = %v, %v; want %s", tt.in, c, err, tt.want)
			}
		})
	}
}

// TestClientEscapesPathOnce checks that an id with characters a path must
// escape reaches the server as the same id, escaped once.
func TestClientEscapesPathOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, id, wantPath string
	}{
		{"", "x/y", "/api/v1/resources/x%2Fy"},
		{"", "a b", "/api/v1/resources/a%20b"},
		{"", "100%", "/api/v1/resources/100%25"},
		{"/prefix", "x/y", "/prefix/api/v1/resources/x%2Fy"},
	}
	for _, tt := range tests {
		t.Run(tt.base+" "+tt.id, func(t *testing.T) {
			got := make(chan string, 1)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- r.URL.EscapedPath()
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"id":"x"}`))
			}))
			defer ts.Close()
			c, err := apiclient.New(ts.URL + tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.ResourceGet(context.Background(), tt.id); err != nil {
				t.Fatal(err)
			}
			if p := <-got; p != tt.wantPath {
				t.Fatalf("server saw %s, want %s", p, tt.wantPath)
			}
		})
	}
}
