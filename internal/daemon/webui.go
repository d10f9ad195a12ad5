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

// withWebUI serves the web UI beside the API on one listener: /api/,
// /healthz, /metrics and /fleetlock/ go to the API, every other path to the UI, which
// does its own authentication (a login form when the daemon has a token).
func withWebUI(api http.Handler, st store.Store, ctrl webui.JobController, res webui.ResourceLister, cl httpapi.ClusterSource, ag httpapi.Agent, o Config, clk clock.Clock, log *slog.Logger, reboot func(context.Context) ([]apitype.RebootGroup, error)) (http.Handler, error) {
	// The daemon's controller (apiController) answers for waves too; a
	// controller that does not leaves the UI without waves.
	waves, _ := ctrl.(webui.WaveController)
	back, err := webui.NewDaemonBackend(webui.DaemonConfig{Store: st, Jobs: ctrl, Resources: res, Describe: describeCron,
		Windows: daemonWindows{o.named, o.schedules}.uiWindows, Cluster: cl, Agent: ag, RebootGroups: reboot, Clock: clk, Waves: waves})
	if err != nil {
		return nil, err
	}
	ui, err := webui.New(webui.Config{Backend: back, Clock: clk, Token: o.token, Auth: access.NewAuthenticator(o.token, st, clk),
		SecureCookies: o.tls.on(), Logger: log.With("component", "webui")})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	for _, p := range []string{"/api/", "/healthz", "/metrics", "/fleetlock/"} {
		mux.Handle(p, api)
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
