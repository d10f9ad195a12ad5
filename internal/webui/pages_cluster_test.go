package webui_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/webui"
	"github.com/almanac-sh/almanac/internal/webui/webuitest"
)

func TestClusterPage(t *testing.T) {
	lapsed := demoNow.Add(-3 * time.Second)
	tests := []struct {
		name    string
		cluster apitype.Cluster
		wants   []string
		unwants []string
	}{
		{"single node", apitype.Cluster{Leader: "box", Self: "box", Now: demoNow,
			Nodes: []apitype.ClusterNode{{ID: "box", Address: "127.0.0.1:8080", Version: "dev", Leader: true}}},
			[]string{"One node, <strong>box</strong>, alone on its embedded store", `data-node="box" data-leader="true"`, "<code>127.0.0.1:8080</code>"},
			[]string{`id="cluster-term"`, "lease runs until"}},
		{"no leader", apitype.Cluster{Term: 4, LeaseExpiresAt: &lapsed, Self: "n1", Now: demoNow,
			Nodes: []apitype.ClusterNode{{ID: "n1", HeartbeatAt: demoNow.Add(-time.Second), Labels: map[string]string{"zone": "eu", "role": "<db>"}},
				{ID: "n2", HeartbeatAt: demoNow.Add(-2 * time.Minute)}}},
			[]string{`<strong id="cluster-leader">No node leads</strong> (term <span id="cluster-term">4</span>)`, "1s ago", "2m 0s ago", `data-node="n2" data-leader="false"`,
				`<code class="label">role=&lt;db&gt;</code> <code class="label">zone=eu</code>`},
			[]string{`class="badge ok">leader`}},
		{"simulated nodes", apitype.Cluster{Leader: "box", Self: "box", Now: demoNow,
			Nodes: []apitype.ClusterNode{{ID: "box", Address: "127.0.0.1:8080", Version: "dev", Leader: true},
				{ID: "demo-web-1", Host: "simulated by serve --demo", HeartbeatAt: demoNow.Add(-time.Second), Labels: map[string]string{"role": "web"}}}},
			[]string{`<strong id="cluster-leader">box</strong> leads on its embedded store and needs no lease; the other nodes listed run inside it`,
				`data-node="demo-web-1" data-leader="false"`, `<td data-label="Address">—</td>`, "simulated by serve --demo", `<code class="label">role=web</code>`},
			[]string{"One node,", `id="cluster-term"`, "<code></code>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			back := webuitest.New(clock.NewFake(demoNow))
			back.SetCluster(tt.cluster)
			h := newHarness(t, webui.Config{Backend: back})
			code, body := h.get("/cluster")
			if code != http.StatusOK {
				t.Fatalf("GET /cluster = %d\n%s", code, body)
			}
			mustContain(t, body, tt.wants...)
			main := body[strings.Index(body, "<main"):]
			for _, u := range tt.unwants {
				if strings.Contains(main, u) {
					t.Errorf("page has %q", u)
				}
			}
		})
	}
}
