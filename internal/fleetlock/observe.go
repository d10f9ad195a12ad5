package fleetlock

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's Prometheus counters; the slot gauges are read
// from the store when scraped.
type metrics struct {
	grants   *prometheus.CounterVec
	refusals *prometheus.CounterVec
	held     *prometheus.Desc
	max      *prometheus.Desc
}

func newMetrics() metrics {
	return metrics{
		grants: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "almanac_fleetlock_grants_total", Help: "Reboot slots granted (not counting a holder asking again), by group.",
		}, []string{"group"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "almanac_fleetlock_refusals_total", Help: "FleetLock requests refused, by error kind.",
		}, []string{"kind"}),
		held: prometheus.NewDesc("almanac_fleetlock_slots_held", "Reboot slots held now, by group.", []string{"group"}, nil),
		max:  prometheus.NewDesc("almanac_fleetlock_slots_max", "Reboot slots a group has (its max_holders).", []string{"group"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (s *Server) Describe(ch chan<- *prometheus.Desc) {
	s.metrics.grants.Describe(ch)
	s.metrics.refusals.Describe(ch)
	ch <- s.metrics.held
	ch <- s.metrics.max
}

// Collect implements prometheus.Collector: the counters, and the slots of
// every group as the store has them now.
func (s *Server) Collect(ch chan<- prometheus.Metric) {
	s.metrics.grants.Collect(ch)
	s.metrics.refusals.Collect(ch)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	groups, err := s.Status(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(s.metrics.held, err)
		return
	}
	for _, g := range groups {
		ch <- prometheus.MustNewConstMetric(s.metrics.held, prometheus.GaugeValue, float64(len(g.Holders)), g.Name)
		if g.Max > 0 {
			ch <- prometheus.MustNewConstMetric(s.metrics.max, prometheus.GaugeValue, float64(g.Max), g.Name)
		}
	}
}

// maxEpisodes bounds the refusal episodes remembered; past it they are
// forgotten at once, which at worst logs a refusal again.
const maxEpisodes = 4096

// episodeKey names a client's standing with a group.
type episodeKey struct{ client, group string }

// episodes remembers, per client and group, the kind of the last refusal
// logged, so that a client retrying every few minutes (Zincati does) is
// logged once per reason, not once per try.
type episodes struct {
	mu   sync.Mutex
	last map[episodeKey]string
}

// refused counts a refusal and logs it when it starts an episode: the
// first refusal of this client in this group, or one for another reason
// than the last.
func (s *Server) refused(r *http.Request, c *call, pe *protocolError) {
	s.metrics.refusals.WithLabelValues(pe.Kind).Inc()
	// An unauthenticated client is known by its address alone, so that
	// inventing ids or groups does not make new episodes.
	client := c.id
	if client == "" {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		client = "address " + host
	}
	key := episodeKey{client, c.group}
	s.episodes.mu.Lock()
	if len(s.episodes.last) >= maxEpisodes {
		clear(s.episodes.last)
	}
	fresh := s.episodes.last[key] != pe.Kind
	s.episodes.last[key] = pe.Kind
	s.episodes.mu.Unlock()
	if !fresh {
		return
	}
	level := slog.LevelWarn
	if pe.Kind == "failed_lock_semaphore_full" || pe.Kind == "outside_window" {
		level = slog.LevelInfo
	}
	s.cfg.Logger.Log(r.Context(), level, "fleetlock: refused", "client", client, "group", c.group,
		"kind", pe.Kind, "status", pe.status, "path", r.URL.Path, "reason", pe.Value)
}

// settled ends a client's refusal episode in a group: it was granted or
// released a slot.
func (s *Server) settled(id, group string) {
	s.episodes.mu.Lock()
	delete(s.episodes.last, episodeKey{id, group})
	s.episodes.mu.Unlock()
}
