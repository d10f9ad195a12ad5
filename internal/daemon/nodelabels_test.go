package daemon

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/nodeselect"
	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/sqlitestore"
)

// TestNodeLabelFlag: --node-label takes KEY=VALUE pairs in the label
// syntax, repeats them harmlessly and refuses a key given two values.
func TestNodeLabelFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want map[string]string
		err  string
	}{
		{"none", nil, nil, ""},
		{"two", []string{"role=db", "example.com/zone=eu-1"}, map[string]string{"role": "db", "example.com/zone": "eu-1"}, ""},
		{"empty value", []string{"canary="}, map[string]string{"canary": ""}, ""},
		{"same twice", []string{"role=db", "role=db"}, map[string]string{"role": "db"}, ""},
		{"conflict", []string{"role=db", "role=web"}, nil, `label "role" given twice ("db" and "web")`},
		{"no equals", []string{"role"}, nil, `"role" is not KEY=VALUE`},
		{"bad key", []string{"-role=db"}, nil, "must start and end with a letter or digit"},
		{"bad value", []string{"role=d b"}, nil, `character ' ' at 2`},
		{"bad prefix", []string{"Example.com/zone=eu"}, nil, "not a DNS subdomain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.AddFlags(fs)
			var args []string
			for _, a := range tt.args {
				args = append(args, "--node-label", a)
			}
			err := fs.Parse(args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.labels.labels(); !maps.Equal(got, tt.want) {
				t.Errorf("labels %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRecordNodeLabels: a node.labels event is appended at the first start
// with labels and whenever a restart brings other labels, and not when
// they stay the same.
func TestRecordNodeLabels(t *testing.T) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	log := slog.New(slog.DiscardHandler)
	starts := []struct {
		node   string
		labels nodeselect.Labels
		event  bool
	}{
		{"a", nil, false},
		{"a", nodeselect.Labels{"role": "db"}, true},
		{"a", nodeselect.Labels{"role": "db"}, false},
		{"b", nodeselect.Labels{"role": "web"}, true},
		{"a", nodeselect.Labels{"role": "db", "zone": "eu"}, true},
		{"a", nil, true},
		{"a", nil, false},
	}
	want := 0
	for i, s := range starts {
		if err := recordNodeLabels(ctx, st, s.node, s.labels, clk, log); err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		if s.event {
			want++
		}
		evs, _, err := st.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventNodeLabels}})
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != want {
			t.Fatalf("start %d (%s %v): %d node.labels events, want %d", i, s.node, s.labels, len(evs), want)
		}
		if !s.event {
			continue
		}
		var d nodeLabelsData
		if evs[0].Resource != "node/"+s.node || json.Unmarshal(evs[0].Data, &d) != nil || !nodeselect.Labels(d.Labels).Equal(s.labels) {
			t.Errorf("start %d: event %+v", i, evs[0])
		}
	}
	evs, _, _ := st.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventNodeLabels}, Page: store.Page{Limit: 1}})
	if msg := evs[0].Message; msg != "node a labels (none) (were role=db,zone=eu)" {
		t.Errorf("message %q", msg)
	}
}

// TestClusterViewLabels: on PostgreSQL a node registers its --node-label
// pairs, and every node's cluster view shows them.
func TestClusterViewLabels(t *testing.T) {
	ctx := context.Background()
	clk := clock.Real{}
	url := pgtest.Schema(t)
	log := slog.New(slog.DiscardHandler)
	view := map[string]map[string]string{}
	for _, n := range []struct{ name, label string }{{"db-1", "role=db"}, {"web-1", "role=web"}} {
		st, err := openPostgres(ctx, url, clk, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		var o Config
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse([]string{"--node", n.name, "--node-label", n.label, "--listen", "127.0.0.1:0"}); err != nil {
			t.Fatal(err)
		}
		c, _, _, err := joinCluster(ctx, backend{Store: st, pg: st}, o, "127.0.0.1:0", clk, log)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := c.Cluster(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range cl.Nodes {
			view[x.ID] = x.Labels
		}
	}
	if view["db-1"]["role"] != "db" || view["web-1"]["role"] != "web" {
		t.Errorf("cluster view labels: %v", view)
	}
}
