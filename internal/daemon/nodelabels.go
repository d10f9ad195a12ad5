package daemon

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"strings"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/nodeselect"
	"github.com/almanac-sh/almanac/internal/store"
)

// labelFlag is serve's repeatable --node-label KEY=VALUE. Values are
// checked as they are given, so a mistake is a usage error naming it.
type labelFlag struct {
	set  nodeselect.Labels
	args []string
}

func (l *labelFlag) String() string { return strings.Join(l.args, ",") }

func (l *labelFlag) Set(v string) error {
	k, val, err := nodeselect.ParseLabel(v)
	if err != nil {
		return err
	}
	if old, ok := l.set[k]; ok && old != val {
		return fmt.Errorf("label %q given twice (%q and %q)", k, old, val)
	}
	if l.set == nil {
		l.set = nodeselect.Labels{}
	}
	if _, ok := l.set[k]; !ok {
		l.args = append(l.args, v)
	}
	l.set[k] = val
	return nil
}

// addNodeLabelFlags declares --node-label on fs.
func addNodeLabelFlags(fs *flag.FlagSet, l *labelFlag) {
	fs.Var(l, "node-label", "a label of this node, KEY=VALUE in the Kubernetes label syntax, for jobs that select nodes (repeatable)")
}

// labels returns the node's labels (nil when none).
func (l *labelFlag) labels() map[string]string {
	if len(l.set) == 0 {
		return nil
	}
	return maps.Clone(l.set)
}

// nodeResource is the event Resource naming a node.
func nodeResource(node string) string { return "node/" + node }

// nodeLabelsData is the Data of a node.labels event.
type nodeLabelsData struct {
	Labels   map[string]string `json:"labels"`
	Previous map[string]string `json:"previous"`
}

// recordNodeLabels appends a node.labels event when node starts with other
// labels than the last such event recorded for it (the first start with
// labels counts as a change from none), so the log tells when a node's
// labels changed across restarts.
func recordNodeLabels(ctx context.Context, st store.Store, node string, labels nodeselect.Labels, clk clock.Clock, log *slog.Logger) error {
	evs, _, err := st.EventList(ctx, store.EventListParams{Kinds: []store.EventKind{store.EventNodeLabels},
		Resource: nodeResource(node), Page: store.Page{Limit: 1}})
	if err != nil {
		return fmt.Errorf("read node labels: %w", err)
	}
	var prev nodeLabelsData
	if len(evs) > 0 {
		if err := json.Unmarshal(evs[0].Data, &prev); err != nil {
			log.Warn("unreadable node.labels event; recording the labels anew", "event", evs[0].ID, "err", err)
			prev = nodeLabelsData{}
		}
	}
	if nodeselect.Labels(prev.Labels).Equal(labels) {
		return nil
	}
	data, err := json.Marshal(nodeLabelsData{Labels: nonNil(labels), Previous: nonNil(prev.Labels)})
	if err != nil {
		return fmt.Errorf("node labels event: %w", err)
	}
	msg := fmt.Sprintf("node %s labels %s (were %s)", node, orNone(labels.String()), orNone(nodeselect.Labels(prev.Labels).String()))
	if err := st.EventAppend(ctx, store.Event{Time: clk.Now(), Kind: store.EventNodeLabels, Resource: nodeResource(node),
		Message: msg, Data: data}); err != nil {
		return fmt.Errorf("record node labels: %w", err)
	}
	log.Info("node labels changed", "node", node, "labels", labels.String(), "previous", nodeselect.Labels(prev.Labels).String())
	return nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
