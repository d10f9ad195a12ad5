package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sizes of the lists on the overview and job pages.
const (
	overviewFires = 10
	jobFires      = 20
	// timelineFires bounds the fires drawn on a job's timeline: two days
	// of a minutely job with room to spare.
	timelineFires = 5000
	// The job timeline shows this much past and future around now.
	timelinePast   = 5 * 24 * time.Hour
	timelineFuture = 2 * 24 * time.Hour
	// At most this many runs are read to draw a timeline.
	scanRuns = 500
)

type overviewData struct {
	Jobs, Suspended, ActiveRuns, Failures24h int
	// Misses24h counts the scheduled instants missed in the same period
	// as the failures; MoreMisses is set when the count stopped at
	// failureScan events.
	Misses24h  int
	MoreMisses bool
	// Missing names the jobs with missed instants in that time, latest
	// first, with how many and the latest reason.
	Missing                                    []missingJob
	Resources, ResourcesUp, ResourcesDown, Bad int
	Fires                                      []Fire
	Windows                                    []Window
	// FailuresSince is where the failure count starts; Failing names the
	// jobs that failed in that time, latest first, with their last error;
	// MoreFailures is set when the count stopped at failureScan.
	FailuresSince time.Time
	Failing       []failingJob
	MoreFailures  bool
	// Undelivered are the jobs whose notifications fail to go out.
	Undelivered []undelivered
}

// failingJob is a job with failed runs in the overview's period.
type failingJob struct {
	Job, Message string
	At           time.Time
	// RunID is the latest failed run; RunKept is set when the run is
	// still kept (older runs are pruned to the job's history limit).
	RunID    int64
	RunKept  bool
	Failures int
}

// missingJob is a job with missed instants in the overview's period.
type missingJob struct {
	Job, Message string
	At           time.Time
	Misses       int
}

// keptChecks bounds how many failing jobs the overview checks for their
// latest failed run still being kept.
const keptChecks = 50

// failureScan bounds the failed-run events the overview reads.
const failureScan = 5000

func (s *server) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := s.cfg.Clock.Now()
	var d overviewData
	sum, err := s.cfg.Backend.JobSummary(ctx)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d.Jobs, d.Suspended, d.ActiveRuns = sum.Jobs, sum.Suspended, sum.ActiveRuns
	d.FailuresSince = now.Add(-24 * time.Hour)
	if err = s.failuresSince(r, &d); err != nil {
		s.backendError(w, r, err)
		return
	}
	if d.Misses24h, d.MoreMisses, d.Missing, err = s.missesSince(ctx, d.FailuresSince); err != nil {
		s.backendError(w, r, err)
		return
	}
	if d.Undelivered, err = s.undeliveredSince(ctx, d.FailuresSince); err != nil {
		s.backendError(w, r, err)
		return
	}
	if d.Fires, err = s.cfg.Backend.Fires(ctx, FireQuery{After: now, Limit: overviewFires}); err != nil {
		s.backendError(w, r, err)
		return
	}
	res, err := s.cfg.Backend.Resources(ctx)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d.Resources = len(res)
	for _, x := range res {
		if x.Up() {
			d.ResourcesUp++
		} else {
			d.ResourcesDown++
		}
		if x.Validation == "errors" {
			d.Bad++
		}
	}
	if d.Windows, err = s.cfg.Backend.Windows(ctx, now); err != nil {
		s.backendError(w, r, err)
		return
	}
	p := s.newPage(r, "Overview", "overview", d)
	p.AutoRefresh = s.cfg.RefreshSeconds
	s.render(w, r, http.StatusOK, "overview", "", p)
}

// failuresSince counts the runs that failed since d.FailuresSince from the
// event log, which keeps every failure (the runs themselves are pruned to
// each job's history limit), and names the failing jobs with their last
// error.
func (s *server) failuresSince(r *http.Request, d *overviewData) error {
	byJob := map[string]int{}
	cursor := int64(0)
	for d.Failures24h < failureScan {
		evs, next, err := s.cfg.Backend.Events(r.Context(), EventQuery{Kind: "run.failed", Since: d.FailuresSince, Cursor: cursor, Limit: 500})
		if err != nil {
			return err
		}
		for _, e := range evs {
			d.Failures24h++
			i, seen := byJob[e.Job]
			if !seen {
				i = len(d.Failing)
				byJob[e.Job] = i
				d.Failing = append(d.Failing, failingJob{Job: e.Job, Message: e.Message, At: e.Time, RunID: e.RunID})
			}
			d.Failing[i].Failures++
		}
		if next == 0 || len(evs) == 0 {
			return s.runsKept(r, d)
		}
		cursor = next
	}
	d.MoreFailures = true
	return s.runsKept(r, d)
}

// runsKept marks the failing jobs whose latest failed run is still kept,
// so the overview links to the run only when it exists (and to the job's
// failure events otherwise).
func (s *server) runsKept(r *http.Request, d *overviewData) error {
	for i := range d.Failing[:min(len(d.Failing), keptChecks)] {
		f := &d.Failing[i]
		if f.RunID == 0 {
			continue
		}
		runs, _, err := s.cfg.Backend.Runs(r.Context(), RunQuery{Job: f.Job, Cursor: f.RunID + 1, Limit: 1})
		if err != nil {
			return err
		}
		f.RunKept = len(runs) > 0 && runs[0].ID == f.RunID
	}
	return nil
}

// jobsPage is how many jobs the jobs list shows at once.
const jobsPage = 100

// jobsData is the jobs list: one page, the filters and the paging names.
type jobsData struct {
	Jobs []Job
	// Filter keeps the jobs whose name contains it; State those in one of
	// the JobStates.
	Filter, State string
	States        []struct{ Value, Label string }
	// After is where this page starts; Next where the next one does ("" on
	// the last page); Prev where the previous one does, if HasPrev.
	After, Next, Prev string
	HasPrev           bool
	// Total counts the matching jobs; First is the position of this
	// page's first job among them (from 1).
	Total, First int
	// Sort is the order shown (?sort=).
	Sort JobSort
}

// sortLink is a sortable column header of the jobs list.
type sortLink struct {
	// URL is the first page with the filters kept, sorted by the column:
	// the other way round when it is the current order, else ascending.
	URL string
	// Aria is the header's aria-sort ("" when the list is not sorted by
	// the column); Mark the arrow shown beside it; Title the link's title.
	Aria, Mark, Title string
}

// sortLabels name the sortable columns in the links' titles.
var sortLabels = map[string]string{JobSortName: "name", JobSortNext: "next fire", JobSortStatus: "status"}

// SortLink is the header link of the column sorting by key.
func (d jobsData) SortLink(key string) sortLink {
	e := d
	e.Sort = JobSort{Key: key}
	l := sortLink{Title: "sort by " + sortLabels[key]}
	if d.Sort.Key == key {
		e.Sort.Desc = !d.Sort.Desc
		l.Aria, l.Mark, l.Title = "ascending", "▲", l.Title+" the other way"
		if d.Sort.Desc {
			l.Aria, l.Mark = "descending", "▼"
		}
	}
	l.URL = e.JobsURL("")
	return l
}

// JobsURL is the jobs list's address with the filters and the order kept
// and the page starting after after.
func (d jobsData) JobsURL(after string) string {
	v := url.Values{}
	if d.Filter != "" {
		v.Set("q", d.Filter)
	}
	if d.State != "" {
		v.Set("state", d.State)
	}
	if after != "" {
		v.Set("after", after)
	}
	if d.Sort != (JobSort{Key: JobSortName}) {
		v.Set("sort", d.Sort.String())
	}
	if len(v) == 0 {
		return "/jobs"
	}
	return "/jobs?" + v.Encode()
}

// ShowAllURL is the jobs list without filters, in the order shown.
func (d jobsData) ShowAllURL() string { return jobsData{Sort: d.Sort}.JobsURL("") }

// SortParam is the ?sort= value the filter form keeps; "" for the
// default order.
func (d jobsData) SortParam() string {
	if d.Sort == (JobSort{Key: JobSortName}) {
		return ""
	}
	return d.Sort.String()
}

func (s *server) jobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := jobsData{Filter: strings.TrimSpace(q.Get("q")), After: q.Get("after"), State: q.Get("state"), States: JobStates}
	if len(d.Filter) > 128 || len(d.After) > 128 {
		s.fail(w, r, http.StatusBadRequest, "The filter and the page name are at most 128 characters.")
		return
	}
	if !validJobState(d.State) {
		s.fail(w, r, http.StatusBadRequest, "Unknown state filter "+strconv.Quote(d.State)+": use failing, missing, suspended, running or waiting.")
		return
	}
	var ok bool
	if d.Sort, ok = ParseJobSort(q.Get("sort")); !ok {
		s.fail(w, r, http.StatusBadRequest, sortError(q.Get("sort")))
		return
	}
	page, err := s.cfg.Backend.Jobs(r.Context(), JobQuery{After: d.After, Filter: d.Filter, State: d.State, Limit: jobsPage, Sort: d.Sort})
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d.Jobs, d.Next, d.Prev, d.HasPrev, d.Total = page.Jobs, page.Next, page.Prev, page.HasPrev, page.Total
	d.First = page.Offset + 1
	p := s.newPage(r, "Jobs", "jobs", d)
	p.AutoRefresh = s.cfg.RefreshSeconds
	p.Back = d.JobsURL(d.After)
	s.render(w, r, http.StatusOK, "jobs", "", p)
}

type jobData struct {
	Job      Job
	Fires    []Fire
	Timeline any
	Runs     []Run
	// Next is the cursor of the next page of runs; Cursor the current one.
	Next, Cursor int64
	// Passed are the job's latest skipped and missed fires, from the event
	// log (a skipped or missed instant often has no run to show).
	Passed []Event
	// Undelivered is the job's latest failed notification when none was
	// delivered since.
	Undelivered *Event
	// Fleet is the wave and node matrix of a fanned-out job; nil for a
	// job that runs on any one node.
	Fleet *fleetData
}

// passedShown is how many skipped and missed fires the job page lists.
const passedShown = 10

func (s *server) job(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := s.cfg.Clock.Now()
	name := r.PathValue("name")
	cursor, ok := cursorParam(r, "before")
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "The before= parameter must be a run id (a positive integer).")
		return
	}
	j, err := s.cfg.Backend.Job(ctx, name)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d := jobData{Job: j, Cursor: cursor}
	if j.FannedOut() {
		if d.Fleet, err = s.fleet(ctx, j); err != nil {
			s.backendError(w, r, err)
			return
		}
	}
	if !j.Suspended {
		if d.Fires, err = s.cfg.Backend.Fires(ctx, FireQuery{Job: name, After: now, Limit: jobFires}); err != nil {
			s.backendError(w, r, err)
			return
		}
	}
	markOverlaps(j, d.Fires)
	if d.Runs, d.Next, err = s.cfg.Backend.Runs(ctx, RunQuery{Job: name, Cursor: cursor, Limit: s.cfg.PageSize}); err != nil {
		s.backendError(w, r, err)
		return
	}
	s.markLiveness(ctx, d.Runs)
	for _, kind := range []string{"run.skipped", "run.missed"} {
		evs, _, err := s.cfg.Backend.Events(ctx, EventQuery{Job: name, Kind: kind, Limit: passedShown})
		if err != nil {
			s.backendError(w, r, err)
			return
		}
		d.Passed = append(d.Passed, evs...)
	}
	if d.Undelivered, err = s.jobUndelivered(ctx, name); err != nil {
		s.backendError(w, r, err)
		return
	}
	slices.SortFunc(d.Passed, func(a, b Event) int { return b.Time.Compare(a.Time) })
	d.Passed = d.Passed[:min(len(d.Passed), passedShown)]
	recent, _, err := s.cfg.Backend.Runs(ctx, RunQuery{Job: name, Limit: scanRuns})
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	tl := timeline{
		Label: fmt.Sprintf("Runs of %s over the last %d days and fires over the next %d", name, int(timelinePast.Hours()/24), int(timelineFuture.Hours()/24)),
		From:  now.Add(-timelinePast), To: now.Add(timelineFuture), Now: now, Loc: zoneOf(j.Zone), Runs: recent,
	}
	tl.Fires = d.Fires
	if len(d.Fires) == jobFires && d.Fires[jobFires-1].Time.Before(tl.To) {
		// Twenty fires do not reach the end of the picture: ask for the
		// rest, up to a bound; a denser job's band says it was cut.
		more, err := s.cfg.Backend.Fires(ctx, FireQuery{Job: name, After: d.Fires[jobFires-1].Time, Limit: timelineFires})
		if err == nil {
			tl.Fires = append(slices.Clip(tl.Fires), more...)
			tl.FiresCut = len(more) == timelineFires && more[len(more)-1].Time.Before(tl.To)
		}
	}
	d.Timeline = tl.render()
	p := s.newPage(r, j.Name, "jobs", d)
	if d.Fleet != nil && d.Fleet.Active() {
		// A wave in progress changes by the second: keep its page current.
		p.AutoRefresh = s.cfg.RefreshSeconds
	}
	s.render(w, r, http.StatusOK, "job", "", p)
}

// markOverlaps marks the fires of a Forbid job that its running run is
// expected to overlap: the controller skips a fire while a run is active.
// The run is expected to last as long as the longest of the job's latest
// finished runs, and no longer than its timeout; with neither known, only
// the next fire is marked.
func markOverlaps(j Job, fires []Fire) {
	if j.ConcurrencyPolicy != "Forbid" || len(fires) == 0 {
		return
	}
	var run *Run
	var longest time.Duration
	for i := range j.Recent {
		r := &j.Recent[i]
		switch {
		case r.State == RunRunning && run == nil:
			run = r
		case !r.StartedAt.IsZero() && !r.FinishedAt.IsZero():
			longest = max(longest, r.FinishedAt.Sub(r.StartedAt))
		}
	}
	if run == nil {
		return
	}
	if j.Timeout > 0 && (longest == 0 || j.Timeout < longest) {
		longest = j.Timeout
	}
	if longest == 0 {
		fires[0].Overlaps = run.ID
		return
	}
	end := run.StartedAt.Add(longest)
	for i := range fires {
		if !fires[i].Time.Before(end) {
			break
		}
		fires[i].Overlaps = run.ID
	}
}

// jobAction handles POST /jobs/{name}/suspend|resume|trigger. A plain form
// is redirected back (Post/Redirect/Get); an htmx request from the jobs table
// gets the job's new row.
func (s *server) jobAction(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	name := r.PathValue("name")
	action := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	htmx := r.Header.Get("HX-Request") == "true"
	switch action {
	case "trigger":
		run, err := s.cfg.Backend.Trigger(ctx, name)
		if err != nil {
			s.actionError(w, r, err)
			return
		}
		to := fmt.Sprintf("/runs/%d", run.ID)
		if htmx {
			w.Header().Set("HX-Redirect", to)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	case "suspend", "resume":
		if err := s.cfg.Backend.SetSuspended(ctx, name, action == "suspend"); err != nil {
			s.actionError(w, r, err)
			return
		}
	}
	if htmx && r.PostFormValue("view") == "row" {
		j, err := s.cfg.Backend.Job(ctx, name)
		if err != nil {
			s.actionError(w, r, err)
			return
		}
		s.render(w, r, http.StatusOK, "jobs", "jobrow", s.newPage(r, "", "jobs", j))
		return
	}
	back := safeNext(r.PostFormValue("return"))
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	done := map[string]string{"suspend": "suspended", "resume": "resumed"}[action]
	http.Redirect(w, r, back+sep+"done="+done, http.StatusSeeOther)
}

func (s *server) actionError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNotFound) {
		s.fail(w, r, http.StatusNotFound, "Not found: "+err.Error())
		return
	}
	s.cfg.Logger.Error("webui: action", "path", r.URL.Path, "err", err)
	s.fail(w, r, http.StatusConflict, "The scheduler refused: "+err.Error())
}

// cursorParam reads an optional positive id parameter; ok is false when it
// is present but not a positive integer.
func cursorParam(r *http.Request, name string) (int64, bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// missesSince counts the scheduled instants missed since since, from the
// run.missed events (each may stand for several instants), and names the
// jobs that missed them, latest first; more is set when it stopped at
// failureScan events.
func (s *server) missesSince(ctx context.Context, since time.Time) (n int, more bool, jobs []missingJob, err error) {
	cursor, events := int64(0), 0
	byJob := map[string]int{}
	for events < failureScan {
		evs, next, err := s.cfg.Backend.Events(ctx, EventQuery{Kind: "run.missed", Since: since, Cursor: cursor, Limit: 500})
		if err != nil {
			return 0, false, nil, err
		}
		for _, e := range evs {
			events++
			c := max(e.Count, 1)
			n += c
			i, seen := byJob[e.Job]
			if !seen {
				i = len(jobs)
				byJob[e.Job] = i
				jobs = append(jobs, missingJob{Job: e.Job, Message: e.Message, At: e.Time})
			}
			jobs[i].Misses += c
		}
		if next == 0 || len(evs) == 0 {
			return n, false, jobs, nil
		}
		cursor = next
	}
	return n, true, jobs, nil
}
