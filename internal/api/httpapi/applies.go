package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// Agent is what the apply routes ask of the daemon's agent (agent mode:
// `serve --manifests`); *agent.Agent implements it.
type Agent interface {
	// Trigger asks for an apply; false means it was folded into one
	// already waiting.
	Trigger(reason string) bool
	// Status is what the agent is doing now.
	Status() agent.Status
	// ListReports lists reports newest first, without resources and events.
	ListReports(ctx context.Context, f agent.ReportFilter) ([]*agent.Report, error)
	// GetReport returns one full report or an error wrapping agent.ErrNotFound.
	GetReport(ctx context.Context, id int64) (*agent.Report, error)
}

// maxReason bounds a trigger's reason.
const maxReason = 200

// HandleApplies adds the agent's routes: POST /api/v1/applies (trigger an
// apply), GET /api/v1/applies (reports, newest first, with the agent's
// status) and GET /api/v1/applies/{id} (one full report).
func (s *Server) HandleApplies(a Agent) {
	h := s.handleFunc
	h("POST /api/v1/applies", func(w http.ResponseWriter, r *http.Request) error {
		if err := checkQuery(r); err != nil {
			return err
		}
		var req apitype.ApplyRequest
		if r.ContentLength != 0 {
			if err := decodeJSON(w, r, &req); err != nil && !errors.Is(err, io.EOF) {
				return err
			}
		}
		if len(req.Reason) > maxReason {
			return invalid("reason", fmt.Sprintf("is %d bytes long; at most %d", len(req.Reason), maxReason))
		}
		if req.Reason == "" {
			req.Reason = "api"
		}
		queued := a.Trigger(req.Reason)
		writeJSON(w, http.StatusAccepted, apitype.ApplyQueued{Queued: queued, Agent: agentStatus(a.Status())})
		return nil
	})
	h("GET /api/v1/applies", func(w http.ResponseWriter, r *http.Request) error {
		if err := checkQuery(r, "page", "limit"); err != nil {
			return err
		}
		p, err := pageParams(r)
		if err != nil {
			return err
		}
		reps, err := a.ListReports(r.Context(), agent.ReportFilter{Before: p.Cursor, Limit: p.Limit})
		if err != nil {
			return fmt.Errorf("list apply reports: %w", err)
		}
		out := apitype.ApplyList{Items: make([]apitype.ApplyReport, len(reps)), Agent: agentStatus(a.Status())}
		for i, r := range reps {
			out.Items[i] = applyReport(r)
		}
		if len(reps) == p.Limit && len(reps) > 0 {
			out.NextPage = strconv.FormatInt(reps[len(reps)-1].ID, 10)
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
	h("GET /api/v1/applies/{id}", func(w http.ResponseWriter, r *http.Request) error {
		if err := checkQuery(r); err != nil {
			return err
		}
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil || id <= 0 {
			return badRequest("id", fmt.Sprintf("%q is not an apply report id (a positive integer)", r.PathValue("id")))
		}
		rep, err := a.GetReport(r.Context(), id)
		if errors.Is(err, agent.ErrNotFound) {
			return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("apply report %d not found", id)}
		}
		if err != nil {
			return fmt.Errorf("get apply report: %w", err)
		}
		writeJSON(w, http.StatusOK, applyReport(rep))
		return nil
	})
}
