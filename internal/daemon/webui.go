package daemon

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/api/httpapi"
	"github.com/almanac-sh/almanac/internal/calendar"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/cron"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/webui"
)

// webUIParts are what the web UI is built over: the daemon's parts it
// reads and acts through, and the settings it needs.
type webUIParts struct {
	// api serves /api/, /healthz, /metrics and /fleetlock/ beside the UI.
	api   http.Handler
	store store.Store
	jobs  webui.JobController
	// waves answers for fanned-out jobs' waves; nil shows none.
	waves     webui.WaveController
	resources webui.ResourceLister
	cluster   httpapi.ClusterSource
	// agent is agent mode's report keeper; nil without manifests.
	agent        httpapi.Agent
	windows      daemonWindows
	rebootGroups func(context.Context) ([]apitype.RebootGroup, error)
	// token is the API token the UI's login asks for; "" without auth.
	token         string
	secureCookies bool
	clk           clock.Clock
	log           *slog.Logger
}

// withWebUI serves the web UI beside the API on one listener: /api/,
// /healthz, /metrics and /fleetlock/ go to the API, every other path to the UI, which
// does its own authentication (a login form when the daemon has a token).
func withWebUI(p webUIParts) (http.Handler, error) {
	back, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: p.store, Jobs: p.jobs, Resources: p.resources, Describe: describeCron,
		Windows: p.windows.uiWindows, Cluster: p.cluster, Agent: p.agent, RebootGroups: p.rebootGroups, Clock: p.clk, Waves: p.waves})
	if err != nil {
		return nil, err
	}
	ui, err := webui.New(webui.Config{Backend: back, Clock: p.clk, Token: p.token, Auth: access.NewAuthenticator(p.token, p.store, p.clk),
		SecureCookies: p.secureCookies, Logger: p.log.With("component", "webui")})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	for _, path := range []string{"/api/", "/healthz", "/metrics", "/fleetlock/"} {
		mux.Handle(path, p.api)
	}
	mux.Handle("/", ui)
	return mux, nil
}

// The job controller the daemon gives the UI acts on waves.
var _ webui.WaveController = apiController{}

// describeCron reads a job's cron expression in plain English for the UI;
// an expression that does not parse gets no reading.
func describeCron(expr, zone string) string {
	loc, err := calendar.LoadZone(zone)
	if err != nil {
		return ""
	}
	s, err := cron.Parse(expr, cron.WithLocation(loc))
	if err != nil {
		return ""
	}
	return s.Describe()
}
