package webui

import (
	"net/http"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// clusterView is the cluster page's data.
type clusterView struct {
	apitype.Cluster
	// Single is true for a daemon alone on its store (SQLite): it leads
	// without a lease.
	Single bool
	// Embedded is true when the daemon leads its embedded store without
	// a lease and lists more nodes: nodes it simulates (serve --demo).
	Embedded bool
	// LeaseExpires is the lease's expiry, zero when there is none.
	LeaseExpires time.Time
}

func (s *server) cluster(w http.ResponseWriter, r *http.Request) {
	c, err := s.cfg.Backend.Cluster(r.Context())
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	noLease := c.LeaseExpiresAt == nil && c.Term == 0 && c.Leader != "" && c.Leader == c.Self
	v := clusterView{Cluster: c, Single: noLease && len(c.Nodes) == 1, Embedded: noLease && len(c.Nodes) > 1}
	if c.LeaseExpiresAt != nil {
		v.LeaseExpires = *c.LeaseExpiresAt
	}
	p := s.newPage(r, "Cluster", "cluster", v)
	p.AutoRefresh = 10
	s.render(w, r, http.StatusOK, "cluster", "", p)
}
