// Package apiclient is a typed client for almanac's HTTP API (/api/v1). The
// CLI talks to the daemon only through it, and end-to-end tests use it to
// watch a real daemon.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// DefaultServer is the daemon's address when none is configured.
const DefaultServer = "http://127.0.0.1:8080"

// Client calls one daemon. It is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	hc    *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithToken sends token as a bearer token on every request.
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithHTTPClient uses hc instead of http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// New returns a client for the daemon at server, an http:// or https:// URL
// ("http://127.0.0.1:8080"); a bare host:port means http.
func New(server string, opts ...Option) (*Client, error) {
	if server == "" {
		server = DefaultServer
	}
	if !strings.Contains(server, "://") {
		server = "http://" + server
	}
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server %q is not an http:// or https:// URL", server)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("server %q must not have a query or fragment", server)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	c := &Client{base: u, hc: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Server returns the daemon's base URL.
func (c *Client) Server() string { return c.base.String() }

// Error is an error answer from the daemon.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// API is the error object the daemon sent.
	API apitype.Error
}

func (e *Error) Error() string { return e.API.Error() }

// Unwrap returns the API error object.
func (e *Error) Unwrap() error { return &e.API }

// IsNotFound reports whether err is a 404 from the daemon.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// UnreachableError means no HTTP answer came back from the daemon at all.
type UnreachableError struct {
	Server string
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach daemon at %s: %v", e.Server, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// do sends a request and decodes a JSON answer into out (if non-nil). It
// returns the response status.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any) (int, error) {
	resp, err := c.send(ctx, method, path, q, body)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out == nil || resp.StatusCode == http.StatusNoContent {
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: bad answer from daemon: %w", method, path, err)
	}
	return resp.StatusCode, nil
}

// send performs the request and turns non-2xx answers into *Error.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, body any) (*http.Response, error) {
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, &UnreachableError{Server: c.Server(), Err: err}
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var eb apitype.ErrorBody
		if json.Unmarshal(b, &eb) != nil || eb.Error == nil {
			msg := strings.TrimSpace(string(b))
			if len(msg) > 200 {
				msg = msg[:200] + "..."
			}
			if msg == "" {
				msg = http.StatusText(resp.StatusCode)
			}
			return nil, &Error{Status: resp.StatusCode, API: apitype.Error{Code: "http_" + strconv.Itoa(resp.StatusCode), Message: fmt.Sprintf("%s %s: %s (is %s an almanac daemon?)", method, path, msg, c.Server())}}
		}
		return nil, &Error{Status: resp.StatusCode, API: *eb.Error}
	}
	return resp, nil
}

func jobPath(name string, suffix ...string) string {
	p := "/api/v1/jobs/" + url.PathEscape(name)
	for _, s := range suffix {
		p += "/" + s
	}
	return p
}

// Health calls GET /healthz.
func (c *Client) Health(ctx context.Context) (apitype.Health, error) {
	var h apitype.Health
	_, err := c.do(ctx, "GET", "/healthz", nil, nil, &h)
	return h, err
}

// JobList returns one page of jobs, by name; page is "" or a previous
// page's NextPage.
func (c *Client) JobList(ctx context.Context, page string) (apitype.Page[apitype.Job], error) {
	var p apitype.Page[apitype.Job]
	q := url.Values{}
	if page != "" {
		q.Set("page", page)
	}
	_, err := c.do(ctx, "GET", "/api/v1/jobs", q, nil, &p)
	return p, err
}

// JobListAll returns every job, following pages.
func (c *Client) JobListAll(ctx context.Context) ([]apitype.Job, error) {
	var all []apitype.Job
	page := ""
	for {
		p, err := c.JobList(ctx, page)
		if err != nil {
			return nil, err
		}
		all = append(all, p.Items...)
		if p.NextPage == "" {
			return all, nil
		}
		page = p.NextPage
	}
}

// JobGet returns one job.
func (c *Client) JobGet(ctx context.Context, name string) (apitype.Job, error) {
	var j apitype.Job
	_, err := c.do(ctx, "GET", jobPath(name), nil, nil, &j)
	return j, err
}

// JobPut creates or replaces a job; created reports which.
func (c *Client) JobPut(ctx context.Context, name string, spec apitype.JobSpec) (j apitype.Job, created bool, err error) {
	code, err := c.do(ctx, "PUT", jobPath(name), nil, spec, &j)
	return j, code == http.StatusCreated, err
}

// JobDelete deletes a job and its runs.
func (c *Client) JobDelete(ctx context.Context, name string) error {
	_, err := c.do(ctx, "DELETE", jobPath(name), nil, nil, nil)
	return err
}

// JobTrigger starts a manual run of a job now.
func (c *Client) JobTrigger(ctx context.Context, name string) (apitype.Run, error) {
	var tr apitype.TriggerResult
	_, err := c.do(ctx, "POST", jobPath(name, "trigger"), nil, nil, &tr)
	return tr.Run, err
}

// JobSuspend stops a job's future runs.
func (c *Client) JobSuspend(ctx context.Context, name string) (apitype.Job, error) {
	var j apitype.Job
	_, err := c.do(ctx, "POST", jobPath(name, "suspend"), nil, nil, &j)
	return j, err
}

// JobResume lets a suspended job run again.
func (c *Client) JobResume(ctx context.Context, name string) (apitype.Job, error) {
	var j apitype.Job
	_, err := c.do(ctx, "POST", jobPath(name, "resume"), nil, nil, &j)
	return j, err
}

// JobNext returns up to n instants after now at which a job is scheduled.
func (c *Client) JobNext(ctx context.Context, name string, n int) (apitype.NextFires, error) {
	var nf apitype.NextFires
	_, err := c.do(ctx, "GET", jobPath(name, "next"), url.Values{"n": {strconv.Itoa(n)}}, nil, &nf)
	return nf, err
}

// RunFilter selects runs for RunList. Zero fields do not filter.
type RunFilter struct {
	Job    string
	States []string
	Page   string
	Limit  int
}

// RunList returns one page of runs, newest first.
func (c *Client) RunList(ctx context.Context, f RunFilter) (apitype.Page[apitype.Run], error) {
	q := url.Values{}
	if f.Job != "" {
		q.Set("job", f.Job)
	}
	if len(f.States) > 0 {
		q.Set("state", strings.Join(f.States, ","))
	}
	setPage(q, f.Page, f.Limit)
	var p apitype.Page[apitype.Run]
	_, err := c.do(ctx, "GET", "/api/v1/runs", q, nil, &p)
	return p, err
}

func setPage(q url.Values, page string, limit int) {
	if page != "" {
		q.Set("page", page)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
}

// RunGet returns one run.
func (c *Client) RunGet(ctx context.Context, id int64) (apitype.Run, error) {
	var r apitype.Run
	_, err := c.do(ctx, "GET", "/api/v1/runs/"+strconv.FormatInt(id, 10), nil, nil, &r)
	return r, err
}

// RunLog returns a run's captured output and its state at the time of the
// call.
func (c *Client) RunLog(ctx context.Context, id int64) (output []byte, state string, err error) {
	resp, err := c.send(ctx, "GET", "/api/v1/runs/"+strconv.FormatInt(id, 10)+"/log", nil, nil)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	output, err = io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", &UnreachableError{Server: c.Server(), Err: err}
	}
	return output, resp.Header.Get("X-Almanac-Run-State"), nil
}

// EventFilter selects events for EventList. Kinds may name families ("run").
type EventFilter struct {
	Job   string
	Kinds []string
	Page  string
	Limit int
	// Resource selects the events of one managed resource.
	Resource string
}

// EventList returns one page of events, newest first.
func (c *Client) EventList(ctx context.Context, f EventFilter) (apitype.Page[apitype.Event], error) {
	q := url.Values{}
	if f.Job != "" {
		q.Set("job", f.Job)
	}
	if f.Resource != "" {
		q.Set("resource", f.Resource)
	}
	if len(f.Kinds) > 0 {
		q.Set("kind", strings.Join(f.Kinds, ","))
	}
	setPage(q, f.Page, f.Limit)
	var p apitype.Page[apitype.Event]
	_, err := c.do(ctx, "GET", "/api/v1/events", q, nil, &p)
	return p, err
}
