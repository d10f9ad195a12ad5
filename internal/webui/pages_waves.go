package webui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// This file is the job page's part for fanned-out jobs: the matrix of
// the latest instants by node, the current wave's progress, and the
// pause, resume and abort actions.

// Sizes of the node matrix.
const (
	// matrixRows is how many instants the matrix shows, newest first.
	matrixRows = 20
	// matrixScan bounds the runs read to find those instants; a job
	// with very many nodes shows fewer.
	matrixScan = 5000
	// matrixNodes bounds the runs of one instant read (one per node and
	// attempt), so a huge fleet cannot make the page unbounded.
	matrixNodes = 2000
)

// anyNode is the matrix column of runs that are for no particular node
// and that no node has claimed yet.
const anyNode = ""

// fleetData is what the job page shows of a fanned-out job.
type fleetData struct {
	Job Job
	// Wave is the latest instant's progress; nil when the job has no
	// targeted runs yet.
	Wave   *Wave
	Matrix nodeMatrix
}

// Active reports whether the latest wave still has nodes to run.
func (f fleetData) Active() bool {
	return f.Wave != nil && (f.Wave.State == apitype.WaveRunning || f.Wave.State == apitype.WavePaused)
}

// Missed counts the latest wave's nodes whose run was missed (its starting
// deadline passed first), as the matrix marks them; the wave's Skipped
// counts these with the runs an aborted or stopped wave never started.
func (f fleetData) Missed() int {
	if f.Wave == nil {
		return 0
	}
	n := 0
	for _, row := range f.Matrix.Rows {
		if !row.Instant.Equal(f.Wave.Instant) {
			continue
		}
		for _, c := range row.Cells {
			if c.Run.Target != "" && c.Class() == RunMissed {
				n++
			}
		}
	}
	return min(n, f.Wave.Skipped)
}

// CanAbort reports whether the latest wave has nodes waiting, whose runs
// an abort would skip.
func (f fleetData) CanAbort() bool { return f.Active() && f.Wave.Waiting > 0 }

// nodeMatrix is a job's latest instants (rows, newest first) by the
// nodes their runs are for (columns, by name).
type nodeMatrix struct {
	Nodes []string
	// Liveness holds the cluster view's node of each column whose node is
	// suspect or down.
	Liveness map[string]apitype.ClusterNode
	Rows     []matrixRow
	// More is set when older instants exist than the rows show.
	More bool
}

// matrixRow is one instant: a cell per column of the matrix.
type matrixRow struct {
	Instant time.Time
	// Manual is set when the instant is a manual trigger's.
	Manual bool
	Cells  []matrixCell
}

// matrixCell is one node's part in an instant: its latest attempt, or
// nothing (Run.ID 0) when the instant has no run for that node.
type matrixCell struct {
	Node string
	Run  Run
	// Loc is the job's zone, in which the tooltip says until when a
	// waiting run waits.
	Loc *time.Location
}

// Class is the cell's state class: a run state, or skipped for a run an
// aborted or stopped wave never started.
func (c matrixCell) Class() string {
	if c.Run.ID == 0 {
		return "none"
	}
	if c.Run.State == RunMissed && strings.HasPrefix(c.Run.Error, "skipped") {
		return "skipped"
	}
	return stateClass(c.Run.State)
}

// cellLooks maps a cell class to its symbol and its word, so a state
// never shows by colour alone.
var cellLooks = map[string][2]string{
	RunSucceeded: {"✓", "succeeded"},
	RunRunning:   {"▶", "running"},
	RunPending:   {"…", "waiting"},
	RunFailed:    {"✗", "failed"},
	RunKilled:    {"■", "killed"},
	RunMissed:    {"–", "missed"},
	RunLost:      {"↯", "lost"},
	"skipped":    {"»", "skipped"},
	"other":      {"?", "other"},
	"none":       {"·", "no run"},
}

// Symbol is the character the cell shows.
func (c matrixCell) Symbol() string { return cellLooks[c.Class()][0] }

// Label is the cell's state in words.
func (c matrixCell) Label() string {
	if l := cellLooks[c.Class()][1]; l != "other" {
		return l
	}
	return c.Run.State
}

// Title is the cell's tooltip: node, state, attempt and error.
func (c matrixCell) Title() string {
	node := c.Node
	if node == anyNode {
		node = "any node"
	}
	if c.Run.ID == 0 {
		return node + ": no run for this instant"
	}
	t := fmt.Sprintf("%s: run #%d %s, attempt %d", node, c.Run.ID, c.Label(), c.Run.Attempt)
	if c.Run.Node != "" && c.Run.Node != c.Node {
		t += " (on " + c.Run.Node + ")"
	}
	if c.Run.Error != "" {
		t += " — " + c.Run.Error
	}
	if c.Run.Waiting != nil {
		t += " — waits: " + c.Run.Waiting.In(c.Loc)
	}
	if c.Run.NodeLiveness != "" {
		t += " — its node is " + c.Run.NodeLiveness
	}
	return t
}

// column is the node a run belongs under: the node it is for, else the
// node that claimed it.
func column(r Run) string { return cmp.Or(r.Target, r.Node) }

// fleet reads what the job page shows of a fanned-out job.
func (s *server) fleet(ctx context.Context, j Job) (*fleetData, error) {
	d := &fleetData{Job: j}
	w, err := s.cfg.Backend.Wave(ctx, j.Name)
	switch {
	case errors.Is(err, ErrNoWave):
	case err != nil:
		return nil, err
	default:
		d.Wave = &w
	}
	if d.Matrix, err = s.nodeMatrix(ctx, j.Name, zoneOf(j.Zone)); err != nil {
		return nil, err
	}
	return d, nil
}

// nodeMatrix finds the job's latest instants among its newest runs and
// reads each instant's runs, keeping each node's latest attempt.
func (s *server) nodeMatrix(ctx context.Context, name string, loc *time.Location) (nodeMatrix, error) {
	var m nodeMatrix
	seen := map[int64]time.Time{}
	var cursor int64
	for scanned := 0; scanned < matrixScan && len(seen) <= matrixRows; {
		runs, next, err := s.cfg.Backend.Runs(ctx, RunQuery{Job: name, Cursor: cursor, Limit: 500})
		if err != nil {
			return m, err
		}
		scanned += len(runs)
		for _, r := range runs {
			seen[r.ScheduledTime.UnixMicro()] = r.ScheduledTime
		}
		if next == 0 {
			break
		}
		cursor = next
		m.More = m.More || scanned >= matrixScan
	}
	instants := make([]time.Time, 0, len(seen))
	for _, t := range seen {
		instants = append(instants, t)
	}
	slices.SortFunc(instants, func(a, b time.Time) int { return b.Compare(a) })
	if len(instants) > matrixRows {
		instants, m.More = instants[:matrixRows], true
	}
	nodes := map[string]bool{}
	var live map[string]apitype.ClusterNode
	for _, t := range instants {
		runs, _, err := s.cfg.Backend.Runs(ctx, RunQuery{Job: name, ScheduledTime: t, Limit: matrixNodes})
		if err != nil {
			return m, err
		}
		row := matrixRow{Instant: t}
		latest := map[string]Run{}
		if live == nil {
			live = s.nodeLiveness(ctx)
		}
		for i := range runs {
			r := &runs[i]
			if n, ok := live[r.livenessNode()]; ok && r.Active() && n.Liveness != apitype.NodeAlive {
				r.NodeLiveness = n.Liveness
			}
		}
		for _, r := range runs {
			col := column(r)
			if o, ok := latest[col]; !ok || r.Attempt > o.Attempt || (r.Attempt == o.Attempt && r.ID > o.ID) {
				latest[col] = r
			}
			nodes[col] = true
			row.Manual = row.Manual || r.Reason == "manual"
		}
		for col, r := range latest {
			row.Cells = append(row.Cells, matrixCell{Node: col, Run: r, Loc: loc})
		}
		m.Rows = append(m.Rows, row)
	}
	for n := range nodes {
		m.Nodes = append(m.Nodes, n)
		if l, ok := live[n]; ok && l.Liveness != apitype.NodeAlive && l.Liveness != "" {
			if m.Liveness == nil {
				m.Liveness = map[string]apitype.ClusterNode{}
			}
			m.Liveness[n] = l
		}
	}
	// Named nodes by name; runs for any node last.
	slices.SortFunc(m.Nodes, func(a, b string) int {
		switch {
		case a == anyNode && b != anyNode:
			return 1
		case b == anyNode && a != anyNode:
			return -1
		}
		return cmp.Compare(a, b)
	})
	for i := range m.Rows {
		m.Rows[i].Cells = alignCells(m.Rows[i].Cells, m.Nodes)
	}
	return m, nil
}

// alignCells returns one cell per node, in the order of nodes.
func alignCells(cells []matrixCell, nodes []string) []matrixCell {
	out := make([]matrixCell, len(nodes))
	for i, n := range nodes {
		out[i].Node = n
		for _, c := range cells {
			if c.Node == n {
				out[i] = c
			}
		}
	}
	return out
}

// waveAction handles POST /jobs/{name}/wave/pause|resume|abort and goes
// back to the job's page with a notice (Post/Redirect/Get).
func (s *server) waveAction(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.PathValue("name")
	done := ""
	switch r.PathValue("action") {
	case "pause", "resume":
		paused := r.PathValue("action") == "pause"
		if err := s.cfg.Backend.SetWavesPaused(ctx, name, paused); err != nil {
			s.actionError(w, r, err)
			return
		}
		done = map[bool]string{true: "waves-paused", false: "waves-resumed"}[paused]
	case "abort":
		n, err := s.cfg.Backend.AbortWaves(ctx, name)
		if err != nil {
			s.actionError(w, r, err)
			return
		}
		done = "waves-aborted&n=" + strconv.Itoa(n)
	default:
		s.fail(w, r, http.StatusNotFound, "A wave can be paused, resumed or aborted; "+strconv.Quote(r.PathValue("action"))+" is none of them.")
		return
	}
	http.Redirect(w, r, jobPath(name)+"?done="+done+"#fleet-h", http.StatusSeeOther)
}

// waveSymbol is the character shown beside a wave state, so the state
// does not show by colour alone.
func waveSymbol(state string) string {
	switch state {
	case apitype.WaveRunning:
		return "▶"
	case apitype.WavePaused:
		return "‖"
	case apitype.WaveStopped:
		return "■"
	case apitype.WaveDone:
		return "✓"
	}
	return "?"
}

// waveNotice is the sentence shown after a wave action, or "".
func waveNotice(done, n string) string {
	switch done {
	case "waves-paused":
		return "Waves paused: waiting nodes are held until the waves are resumed; runs already started go on."
	case "waves-resumed":
		return "Waves resumed."
	case "waves-aborted":
		count, err := strconv.Atoi(n)
		if err != nil || count < 0 {
			return "Waves aborted."
		}
		if count == 1 {
			return "Waves aborted: 1 waiting run was skipped; runs already started go on."
		}
		return fmt.Sprintf("Waves aborted: %d waiting runs were skipped; runs already started go on.", count)
	}
	return ""
}
