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
	"time"

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

// UserAgent is the User-Agent the client sends; the daemon records
// changes made with it as arriving by the CLI ("cli") rather than "api".
const UserAgent = "almanac-cli"

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

// call sends a request and decodes its JSON answer as a T.
func call[T any](ctx context.Context, c *Client, method, path string, q url.Values, body any) (T, error) {
	var out T
	_, err := c.do(ctx, method, path, q, body, &out)
	return out, err
}

// send performs the request and turns non-2xx answers into *Error.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, body any) (*http.Response, error) {
	// path comes escaped (names and ids go through url.PathEscape), so it
	// extends the escaped form; Path gets the decoded one.
	decoded, err := url.PathUnescape(path)
	if err != nil {
		return nil, fmt.Errorf("request path %q: %w", path, err)
	}
	u := *c.base
	u.RawPath = c.base.EscapedPath() + path
	u.Path += decoded
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
	req.Header.Set("User-Agent", UserAgent)
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
	return call[apitype.Health](ctx, c, "GET", "/healthz", nil, nil)
}

// JobList returns one page of jobs, by name; page is "" or a previous
// page's NextPage.
func (c *Client) JobList(ctx context.Context, page string) (apitype.Page[apitype.Job], error) {
	q := url.Values{}
	setPage(q, page, 0)
	return call[apitype.Page[apitype.Job]](ctx, c, "GET", "/api/v1/jobs", q, nil)
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
	return call[apitype.Job](ctx, c, "GET", jobPath(name), nil, nil)
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
	tr, err := call[apitype.TriggerResult](ctx, c, "POST", jobPath(name, "trigger"), nil, nil)
	return tr.Run, err
}

// JobSuspend stops a job's future runs.
func (c *Client) JobSuspend(ctx context.Context, name string) (apitype.Job, error) {
	return call[apitype.Job](ctx, c, "POST", jobPath(name, "suspend"), nil, nil)
}

// JobResume lets a suspended job run again.
func (c *Client) JobResume(ctx context.Context, name string) (apitype.Job, error) {
	return call[apitype.Job](ctx, c, "POST", jobPath(name, "resume"), nil, nil)
}

// JobNext returns up to n instants after now at which a job is scheduled.
func (c *Client) JobNext(ctx context.Context, name string, n int) (apitype.NextFires, error) {
	return call[apitype.NextFires](ctx, c, "GET", jobPath(name, "next"), url.Values{"n": {strconv.Itoa(n)}}, nil)
}

// RunFilter selects runs for RunList. Zero fields do not filter.
type RunFilter struct {
	Job string
	// Node keeps the runs targeted at that node or claimed by it.
	Node   string
	States []string
	// Since and Until keep the runs scheduled at or after Since and
	// before Until.
	Since, Until time.Time
	Page         string
	Limit        int
}

// RunList returns one page of runs, newest first.
func (c *Client) RunList(ctx context.Context, f RunFilter) (apitype.Page[apitype.Run], error) {
	q := query("job", f.Job, "node", f.Node, "state", strings.Join(f.States, ","), "since", rfc3339(f.Since), "until", rfc3339(f.Until))
	setPage(q, f.Page, f.Limit)
	return call[apitype.Page[apitype.Run]](ctx, c, "GET", "/api/v1/runs", q, nil)
}

// query builds a query string from key, value pairs, leaving out the
// empty values.
func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	return q
}

// setPage adds the paging parameters that are set.
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
	return call[apitype.Run](ctx, c, "GET", "/api/v1/runs/"+strconv.FormatInt(id, 10), nil, nil)
}

// RunKill asks the daemon to stop an active run and returns the run as it
// was when the request was accepted; it ends as killed once its processes
// have exited.
func (c *Client) RunKill(ctx context.Context, id int64) (apitype.Run, error) {
	return call[apitype.Run](ctx, c, "POST", "/api/v1/runs/"+strconv.FormatInt(id, 10)+"/kill", nil, nil)
}

// RunLog returns a run's captured output and its state at the time of the
// call.
func (c *Client) RunLog(ctx context.Context, id int64) (output []byte, state string, err error) {
	output, _, state, err = c.RunLogFrom(ctx, id, 0)
	return output, state, err
}

// RunLogFrom returns a run's output from byte offset on, the offset to ask
// from next time, and the run's state: calling it again with next until
// the state is final follows the run as it writes.
func (c *Client) RunLogFrom(ctx context.Context, id, offset int64) (output []byte, next int64, state string, err error) {
	var q url.Values
	if offset > 0 {
		q = url.Values{"offset": {strconv.FormatInt(offset, 10)}}
	}
	resp, err := c.send(ctx, "GET", "/api/v1/runs/"+strconv.FormatInt(id, 10)+"/log", q, nil)
	if err != nil {
		return nil, 0, "", err
	}
	defer resp.Body.Close()
	output, err = io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, "", &UnreachableError{Server: c.Server(), Err: err}
	}
	next, err = strconv.ParseInt(resp.Header.Get("X-Almanac-Output-Next"), 10, 64)
	if err != nil {
		next = offset + int64(len(output)) // a daemon from before offsets
	}
	return output, next, resp.Header.Get("X-Almanac-Run-State"), nil
}

// EventFilter selects events for EventList. Kinds may name families ("run").
type EventFilter struct {
	Job   string
	Kinds []string
	Page  string
	Limit int
	// Resource selects the events of one managed resource.
	Resource string
	// Actor selects the events one actor caused (a token's name,
	// manifest:FILE, fleetlock:ID).
	Actor string
}

// EventList returns one page of events, newest first.
func (c *Client) EventList(ctx context.Context, f EventFilter) (apitype.Page[apitype.Event], error) {
	q := query("job", f.Job, "resource", f.Resource, "kind", strings.Join(f.Kinds, ","), "actor", f.Actor)
	setPage(q, f.Page, f.Limit)
	return call[apitype.Page[apitype.Event]](ctx, c, "GET", "/api/v1/events", q, nil)
}

// rfc3339 formats t for a query parameter; "" (left out) for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}
