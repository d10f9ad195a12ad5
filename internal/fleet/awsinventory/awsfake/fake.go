// Package awsfake is an in-process stand-in for the parts of the Amazon EC2
// and Amazon RDS Query APIs that almanac's AWS inventory uses, so the real
// SDK client can be tested without an AWS account: it answers the
// form-encoded POST requests with XML shaped like the examples of the API
// references, keeps instance and database states, and can be told to
// throttle, refuse actions on chosen resources, or restart a stopped
// database by itself.
//
// One server answers both services and every region: the region and the
// service come from the credential scope of the request's signature, which
// the stand-in does not verify.
package awsfake

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Instance is one EC2 instance.
type Instance struct {
	ID     string
	Region string
	// State is the EC2 state name: pending, running, shutting-down,
	// terminated, stopping or stopped.
	State string
	// StateReason is the state reason code, such as
	// Client.UserInitiatedHibernate; empty for none.
	StateReason string
	Tags        map[string]string
	// Hibernation is HibernationOptions.Configured.
	Hibernation bool
}

// DB is one RDS DB instance or Aurora DB cluster.
type DB struct {
	Region     string
	Identifier string
	Cluster    bool
	// ClusterID names the cluster a DB instance belongs to (Aurora).
	ClusterID string
	// Status is the RDS status: available, starting, stopping, stopped,
	// deleting and so on.
	Status string
	Tags   map[string]string
}

// ARN is the DB instance's or cluster's ARN.
func (d *DB) ARN() string {
	kind := "db"
	if d.Cluster {
		kind = "cluster"
	}
	return fmt.Sprintf("arn:aws:rds:%s:%s:%s:%s", d.Region, Account, kind, d.Identifier)
}

// Account is the account id in the stand-in's answers.
const Account = "123456789012"

// Call is one start or stop request the stand-in received.
type Call struct {
	Region    string
	Action    string // StartInstances, StopInstances, StartDBInstance, ...
	IDs       []string
	Hibernate bool
	// Err is the error code answered, empty on success.
	Err string
}

// String formats the call as "us-east-1 StopInstances i-1,i-2 hibernate".
func (c Call) String() string {
	s := c.Region + " " + c.Action + " " + strings.Join(c.IDs, ",")
	if c.Hibernate {
		s += " hibernate"
	}
	if c.Err != "" {
		s += " -> " + c.Err
	}
	return s
}

// Server is the stand-in. Its zero value is not usable; call New.
type Server struct {
	*httptest.Server

	mu        sync.Mutex
	regions   []string
	instances map[string]*Instance
	dbs       map[string]*DB // by region + "/" + kind + "/" + identifier
	throttle  int
	refuse    map[string]refusal
	calls     []Call
	requests  map[string]int
	seq       int // requests answered, for request ids
	// PageSize bounds each describe page (default: the request's
	// MaxResults or MaxRecords, else 1,000 instances or 100 databases).
	pageSize int
}

type refusal struct {
	code  string
	times int // -1: always
}

// New starts a stand-in knowing the given enabled regions.
func New(regions ...string) *Server {
	s := &Server{
		regions:   regions,
		instances: map[string]*Instance{},
		dbs:       map[string]*DB{},
		refuse:    map[string]refusal{},
		requests:  map[string]int{},
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetPageSize makes describe answers at most n items long, whatever the
// request asks.
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
}

// AddInstance adds or replaces an instance.
func (s *Server) AddInstance(in Instance) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := in
	c.Tags = copyTags(in.Tags)
	s.instances[in.ID] = &c
}

// AddDB adds or replaces a DB instance or cluster.
func (s *Server) AddDB(d DB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := d
	c.Tags = copyTags(d.Tags)
	s.dbs[dbKey(d.Region, d.Cluster, d.Identifier)] = &c
}

func dbKey(region string, cluster bool, id string) string {
	return fmt.Sprintf("%s/%t/%s", region, cluster, id)
}

// Instance returns a copy of an instance.
func (s *Server) Instance(id string) (Instance, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.instances[id]
	if !ok {
		return Instance{}, false
	}
	return *in, true
}

// SetInstanceState changes an instance's state as its owner would.
func (s *Server) SetInstanceState(id, state, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.instances[id]; ok {
		in.State, in.StateReason = state, reason
	}
}

// SetInstanceTag sets a tag of an instance; an empty value removes it.
func (s *Server) SetInstanceTag(id, key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.instances[id]; ok {
		if value == "" {
			delete(in.Tags, key)
		} else {
			in.Tags[key] = value
		}
	}
}

// DBStatus returns the status of a DB instance or cluster.
func (s *Server) DBStatus(region string, cluster bool, id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.dbs[dbKey(region, cluster, id)]; ok {
		return d.Status
	}
	return ""
}

// SetDBStatus changes a DB instance's or cluster's status, as RDS does when
// it starts a database that has been stopped for seven days.
func (s *Server) SetDBStatus(region string, cluster bool, id, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.dbs[dbKey(region, cluster, id)]; ok {
		d.Status = status
	}
}

// Throttle makes the next n requests fail with the service's throttling
// error (RequestLimitExceeded for EC2, Throttling for RDS).
func (s *Server) Throttle(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.throttle = n
}

// Refuse makes the next times start or stop requests naming id (an
// instance id, or a database's ARN) fail as a whole with the error code
// (times < 0: every one). InternalError and Unavailable are answered with a
// 5xx status, as AWS does, other codes with 400.
func (s *Server) Refuse(id, code string, times int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse[id] = refusal{code: code, times: times}
}

// Calls returns the start and stop requests received, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Requests returns how many requests of an action (DescribeInstances, ...)
// were received, throttled ones included.
func (s *Server) Requests(action string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[action]
}

func copyTags(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// maxBody bounds a request body; the largest almanac sends (a thousand
// instance ids) is far smaller.
const maxBody = 1 << 20

// scope reads "Credential=AKID/20240101/us-east-1/ec2/aws4_request" from
// the Authorization header.
var scope = regexp.MustCompile(`Credential=[^/]+/[0-9]+/([^/]+)/([^/]+)/aws4_request`)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "the Query API takes POST requests", http.StatusMethodNotAllowed)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	m := scope.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		http.Error(w, "request is not signed with AWS Signature Version 4", http.StatusForbidden)
		return
	}
	region, service := m[1], m[2]
	q := query(r.PostForm)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[q.action()]++
	s.seq++
	var a answer
	switch service {
	case "ec2":
		a = s.ec2(region, q)
	case "rds":
		a = s.rds(region, q)
	default:
		a = answer{status: http.StatusBadRequest, body: "unknown service " + service}
	}
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(a.status)
	_, _ = w.Write([]byte(a.body))
}

// answer is a response: status and XML body.
type answer struct {
	status int
	body   string
}

// throttled reports whether this request is to be throttled, counting it.
func (s *Server) throttled() bool {
	if s.throttle > 0 {
		s.throttle--
		return true
	}
	return false
}

// refusalStatus is the HTTP status AWS answers an error code with.
func refusalStatus(code string) int {
	switch code {
	case "InternalError":
		return http.StatusInternalServerError
	case "Unavailable":
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// refused returns the error code an action naming ids fails with, if any.
func (s *Server) refused(ids []string) (string, string) {
	for _, id := range ids {
		r, ok := s.refuse[id]
		if !ok || r.times == 0 {
			continue
		}
		if r.times > 0 {
			r.times--
			s.refuse[id] = r
		}
		return r.code, id
	}
	return "", ""
}
