package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/store"
)

// defaultPage is how many runs or events a list returns without ?limit.
const defaultPage = 100

var runStates = map[string]store.RunState{}

func init() {
	for _, st := range apitype.RunStates {
		runStates[st] = store.RunState(st)
	}
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r, "job", "node", "state", "since", "until", "page", "limit"); err != nil {
		return err
	}
	q := r.URL.Query()
	p := store.RunListParams{Job: q.Get("job"), Node: q.Get("node"), JobPrefix: access.From(r.Context()).JobPrefix}
	if len(p.Node) > maxNodeName || strings.ContainsFunc(p.Node, unicode.IsControl) {
		return badRequest("?node", fmt.Sprintf("%.40q is not a node name", p.Node))
	}
	if p.Job != "" {
		if _, err := s.loadJob(r.Context(), p.Job); err != nil {
			return fieldOf(err, "?job")
		}
	}
	if st := q.Get("state"); st != "" {
		for _, one := range strings.Split(st, ",") {
			rs, ok := runStates[strings.TrimSpace(one)]
			if !ok {
				return badRequest("?state", fmt.Sprintf("%q is not a run state (one of %s)", one, strings.Join(apitype.RunStates, ", ")))
			}
			p.States = append(p.States, rs)
		}
	}
	var err error
	if p.Since, p.Until, err = timeSpan(r); err != nil {
		return err
	}
	if p.Page, err = pageParams(r); err != nil {
		return err
	}
	runs, next, err := s.cfg.Store.RunList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list runs: %w", err)
	}
	page := apitype.Page[apitype.Run]{Items: make([]apitype.Run, 0, len(runs))}
	for _, run := range runs {
		page.Items = append(page.Items, runFromStore(run))
	}
	if err := s.addWaiting(r.Context(), runs, page.Items); err != nil {
		return err
	}
	s.addKubernetes(r.Context(), runs, page.Items)
	s.markLiveness(r.Context(), page.Items)
	if next != 0 {
		page.NextPage = strconv.FormatInt(next, 10)
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// maxNodeName bounds ?node: a node name is a host name, at most 253
// characters.
const maxNodeName = 253

// pageParams reads ?page (a cursor from a previous page) and ?limit.
func pageParams(r *http.Request) (store.Page, error) {
	cursor, err := queryInt(r, "page", 0, 0)
	if err != nil {
		return store.Page{}, badRequest("?page", fmt.Sprintf("%q is not a page token from a previous response", r.URL.Query().Get("page")))
	}
	limit, err := queryCount(r, "limit", defaultPage, 1000)
	if err != nil {
		return store.Page{}, err
	}
	return store.Page{Cursor: cursor, Limit: int(limit)}, nil
}

// fieldOf re-labels an API error's field (a job named in a query parameter).
func fieldOf(err error, field string) error {
	var ae *apitype.Error
	if errors.As(err, &ae) {
		cp := *ae
		cp.Field = field
		return &cp
	}
	return err
}

func (s *Server) loadRun(r *http.Request) (store.Run, error) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return store.Run{}, badRequest("id", fmt.Sprintf("run id %q is not a positive integer", raw))
	}
	run, err := s.cfg.Store.RunGet(r.Context(), id)
	if err == nil && !access.From(r.Context()).SeesJob(run.Job) {
		// A run of a job outside the token's prefix is as absent as
		// its job.
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		return run, &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("run %d not found", id)}
	}
	if err != nil {
		return run, fmt.Errorf("get run %d: %w", id, err)
	}
	return run, nil
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) error {
	run, err := s.loadRun(r)
	if err != nil {
		return err
	}
	out := []apitype.Run{runFromStore(run)}
	if err := s.addWaiting(r.Context(), []store.Run{run}, out); err != nil {
		return err
	}
	s.addKubernetes(r.Context(), []store.Run{run}, out)
	s.markLiveness(r.Context(), out)
	writeJSON(w, http.StatusOK, out[0])
	return nil
}

// addWaiting fills in why the held ones among runs wait (out[i] is
// runs[i]), with one store read.
func (s *Server) addWaiting(ctx context.Context, runs []store.Run, out []apitype.Run) error {
	waits, err := store.WaitingOf(ctx, s.cfg.Store, runs)
	if err != nil {
		return err
	}
	for i, r := range runs {
		if w, ok := waits[r.ID]; ok {
			out[i].Waiting = &apitype.Waiting{Kind: string(w.Kind), Detail: w.Detail, Until: timePtr(w.Until)}
		}
	}
	return nil
}

// killRun asks the controller to stop an active run and answers 202 with
// the run as it is now; the run ends as killed once its process group has
// exited. A run that has already ended is a conflict.
func (s *Server) killRun(w http.ResponseWriter, r *http.Request) error {
	run, err := s.loadRun(r)
	if err != nil {
		return err
	}
	if run.State.Terminal() {
		return &apitype.Error{Code: apitype.CodeConflict, Message: fmt.Sprintf("run %d has already ended (%s)", run.ID, run.State)}
	}
	err = s.cfg.Controller.Kill(r.Context(), run.ID)
	switch {
	case errors.Is(err, store.ErrConflict):
		return &apitype.Error{Code: apitype.CodeConflict, Message: fmt.Sprintf("run %d has already ended", run.ID)}
	case errors.Is(err, store.ErrNotFound):
		return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("run %d not found", run.ID)}
	case err != nil:
		return fmt.Errorf("kill run %d: %w", run.ID, err)
	}
	if now, err := s.cfg.Store.RunGet(r.Context(), run.ID); err == nil {
		run = now
	}
	writeJSON(w, http.StatusAccepted, runFromStore(run))
	return nil
}

// getRunLog returns a run's captured output (the tail of stdout and stderr,
// interleaved) as plain text. The run's state travels in a header so a
// client can tell whether more output may come. While the run executes on
// this node its output so far is read from the process; ?offset=N skips
// the first N bytes of the output, and the next offset to ask from travels
// in the OutputNextHeader, so a client can follow a run as it goes.
func (s *Server) getRunLog(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r, "offset"); err != nil {
		return err
	}
	offset, err := queryInt(r, "offset", 0, 0)
	if err != nil {
		return err
	}
	run, err := s.loadRun(r)
	if err != nil {
		return err
	}
	out, next, live := []byte(nil), int64(0), false
	if lo, ok := s.cfg.Controller.(LiveOutputter); ok && !run.State.Terminal() {
		out, next, live = lo.LiveOutput(run.ID, offset)
	}
	if !live {
		stored := run.Output
		out, next = stored[min(offset, int64(len(stored))):], int64(len(stored))
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set(RunStateHeader, string(run.State))
	w.Header().Set(OutputNextHeader, strconv.FormatInt(next, 10))
	w.WriteHeader(http.StatusOK)
	w.Write(out)
	return nil
}

// RunStateHeader carries the run's state on GET /api/v1/runs/{id}/log.
const RunStateHeader = "X-Almanac-Run-State"

// OutputNextHeader carries, on GET /api/v1/runs/{id}/log, the offset to
// pass as ?offset= to get only the output written after this answer.
const OutputNextHeader = "X-Almanac-Output-Next"

// LiveOutputter is implemented by a Controller that can read the output of
// runs executing on this node while they run.
type LiveOutputter interface {
	// LiveOutput returns the output from byte offset on, the next offset,
	// and false when the run is not executing here.
	LiveOutput(id, offset int64) ([]byte, int64, bool)
}
