package awsinventory

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/fleet/awsinventory/awsfake"
)

// noDelay makes retries immediate, so tests do not wait on the SDK's
// backoff.
var noDelay = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })

// newSource returns a Source talking to the stand-in.
func newSource(t testing.TB, s *awsfake.Server, regions []string, services ...string) *Source {
	t.Helper()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")}
	src, err := New(context.Background(), Config{Regions: regions, Services: services, Endpoint: s.URL, AWS: &cfg, Backoff: noDelay})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func newStandin(t testing.TB, regions ...string) *awsfake.Server {
	t.Helper()
	s := awsfake.New(regions...)
	t.Cleanup(s.Close)
	return s
}

var office = map[string]string{
	"almanac-schedule-start":    "mon0800",
	"almanac-schedule-stop":     "mon1800",
	"almanac-schedule-timezone": "utc",
}

func with(tags map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range tags {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func ids(rs []fleet.Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// Only tagged instances are listed (either prefix, exact lower case),
// across pages and regions, with their name, tags and hibernation support.
func TestListPaginatesAndFilters(t *testing.T) {
	s := newStandin(t, "us-east-1", "eu-west-1")
	s.SetPageSize(3)
	for i := range 7 {
		s.AddInstance(awsfake.Instance{ID: fmt.Sprintf("i-%02d", i), Region: "us-east-1", State: "running", Tags: office})
	}
	s.AddInstance(awsfake.Instance{ID: "i-po", Region: "eu-west-1", State: "stopped", Hibernation: true,
		Tags: map[string]string{"prosperops-schedule-power-off": "fri1800", "Name": "legacy"}})
	s.AddInstance(awsfake.Instance{ID: "i-untagged", Region: "us-east-1", State: "running", Tags: map[string]string{"team": "web"}})
	s.AddInstance(awsfake.Instance{ID: "i-upper", Region: "us-east-1", State: "running", Tags: map[string]string{"Almanac-Schedule-Start": "mon0800"}})
	src := newSource(t, s, []string{"us-east-1", "eu-west-1"}, ServiceEC2)
	rs, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"i-00", "i-01", "i-02", "i-03", "i-04", "i-05", "i-06", "i-po"}
	if got := ids(rs); !reflect.DeepEqual(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	if n := s.Requests("DescribeInstances"); n != 3+1 {
		t.Errorf("%d DescribeInstances requests, want 3 pages in us-east-1 and 1 in eu-west-1", n)
	}
	po := rs[7]
	if po.Name != "legacy" || po.State != fleet.Stopped || !po.SupportsHibernation || po.Tags["prosperops-schedule-power-off"] != "fri1800" {
		t.Errorf("i-po = %+v", po)
	}
	if rs[0].Name != "i-00" || rs[0].SupportsHibernation || !reflect.DeepEqual(rs[0].Tags, office) {
		t.Errorf("i-00 = %+v", rs[0])
	}
}

// Every EC2 state and RDS status maps to running, stopped or hibernated,
// or is dropped.
func TestStates(t *testing.T) {
	s := newStandin(t, "us-east-1")
	ec2States := []struct {
		state, reason string
		want          fleet.State // "" = dropped
	}{
		{"pending", "", fleet.Running},
		{"running", "", fleet.Running},
		{"stopping", "Client.UserInitiatedShutdown", fleet.Stopped},
		{"stopped", "Client.UserInitiatedShutdown", fleet.Stopped},
		{"stopped", "", fleet.Stopped},
		{"stopping", "Client.UserInitiatedHibernate", fleet.Hibernated},
		{"stopped", "Client.UserInitiatedHibernate", fleet.Hibernated},
		{"shutting-down", "", ""},
		{"terminated", "", ""},
	}
	want := map[string]fleet.State{}
	for i, st := range ec2States {
		id := fmt.Sprintf("i-%d", i)
		s.AddInstance(awsfake.Instance{ID: id, Region: "us-east-1", State: st.state, StateReason: st.reason, Tags: office})
		if st.want != "" {
			want[id] = st.want
		}
	}
	rdsStates := []struct {
		status string
		want   fleet.State
	}{
		{"available", fleet.Running}, {"starting", fleet.Running}, {"backing-up", fleet.Running},
		{"modifying", fleet.Running}, {"stopping", fleet.Stopped}, {"stopped", fleet.Stopped}, {"deleting", ""},
	}
	for i, st := range rdsStates {
		d := awsfake.DB{Region: "us-east-1", Identifier: fmt.Sprintf("db-%d", i), Status: st.status, Tags: office}
		c := awsfake.DB{Region: "us-east-1", Identifier: fmt.Sprintf("cl-%d", i), Cluster: true, Status: st.status, Tags: office}
		s.AddDB(d)
		s.AddDB(c)
		if st.want != "" {
			want[d.ARN()], want[c.ARN()] = st.want, st.want
		}
	}
	// An Aurora cluster's instance is managed through its cluster.
	s.AddDB(awsfake.DB{Region: "us-east-1", Identifier: "cl-0-a", ClusterID: "cl-0", Status: "available", Tags: office})
	rs, err := newSource(t, s, []string{"us-east-1"}).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]fleet.State{}
	for _, r := range rs {
		got[r.ID] = r.State
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("states:\n got %v\nwant %v", got, want)
	}
}

// Hibernation: an instance with hibernation configured is stopped with
// Hibernate=true and then lists as hibernated; one without is refused
// without a request, with the message the tag rules' warning uses.
func TestHibernate(t *testing.T) {
	ctx := context.Background()
	s := newStandin(t, "us-east-1")
	s.AddInstance(awsfake.Instance{ID: "i-hib", Region: "us-east-1", State: "running", Hibernation: true, Tags: office})
	s.AddInstance(awsfake.Instance{ID: "i-nohib", Region: "us-east-1", State: "running", Tags: office})
	src := newSource(t, s, []string{"us-east-1"})
	if _, err := src.List(ctx); err != nil {
		t.Fatal(err)
	}
	errs := src.Act(ctx, fleet.ActionHibernate, []string{"i-hib", "i-nohib"})
	if len(errs) != 1 || errs["i-nohib"] == nil || !strings.Contains(errs["i-nohib"].Error(), "does not support hibernation") {
		t.Fatalf("errors %v", errs)
	}
	if c := s.Calls(); len(c) != 1 || c[0].String() != "us-east-1 StopInstances i-hib hibernate" {
		t.Fatalf("calls %v", c)
	}
	rs, _ := src.List(ctx)
	if rs[0].ID != "i-hib" || rs[0].State != fleet.Hibernated {
		t.Fatalf("after hibernate: %+v", rs[0])
	}
	if err := src.Start(ctx, "i-hib"); err != nil {
		t.Fatal(err)
	}
	if in, _ := s.Instance("i-hib"); in.State != "running" {
		t.Fatalf("after start: %+v", in)
	}
}

// Throttling is retried by the SDK until it passes, beyond the attempts
// other errors get: the listing and the action succeed and nothing counts
// as failed. (The adaptive retryer slows the client down after each
// throttle, so this takes seconds.)
func TestThrottlingIsRetried(t *testing.T) {
	if testing.Short() {
		t.Skip("the adaptive retryer waits seconds after throttling; skipped with -short")
	}
	ctx := context.Background()
	s := newStandin(t, "us-east-1")
	s.AddInstance(awsfake.Instance{ID: "i-1", Region: "us-east-1", State: "running", Tags: office})
	s.AddDB(awsfake.DB{Region: "us-east-1", Identifier: "db", Status: "available", Tags: office})
	s.Throttle(otherAttempts)
	rs, err := newSource(t, s, []string{"us-east-1"}).List(ctx)
	if err != nil || len(rs) != 2 {
		t.Fatalf("list under throttling: %v, %v", rs, err)
	}
	if n := s.Requests("DescribeInstances"); n != otherAttempts+1 {
		t.Errorf("%d DescribeInstances requests, want %d throttled and 1 answered", n, otherAttempts)
	}
	src := newSource(t, s, []string{"us-east-1"})
	if _, err := src.List(ctx); err != nil {
		t.Fatal(err)
	}
	s.Throttle(otherAttempts)
	if errs := src.Act(ctx, fleet.ActionStop, []string{"i-1", rs[0].ID}); len(errs) != 0 {
		t.Fatalf("stop under throttling: %v", errs)
	}
	if in, _ := s.Instance("i-1"); in.State != "stopped" {
		t.Errorf("i-1 %s", in.State)
	}
	if st := s.DBStatus("us-east-1", false, "db"); st != "stopped" {
		t.Errorf("db %s", st)
	}
}

// Errors other than throttling get a bounded number of attempts, then fail
// the action with AWS's code.
func TestOtherErrorsAreBounded(t *testing.T) {
	ctx := context.Background()
	s := newStandin(t, "us-east-1")
	s.AddInstance(awsfake.Instance{ID: "i-1", Region: "us-east-1", State: "stopped", Tags: office})
	src := newSource(t, s, []string{"us-east-1"})
	if _, err := src.List(ctx); err != nil {
		t.Fatal(err)
	}
	s.Refuse("i-1", "InternalError", -1)
	err := src.Start(ctx, "i-1")
	var ae *ActionError
	if !errors.As(err, &ae) || ae.Code() != "InternalError" || ae.ID != "i-1" {
		t.Fatalf("start refused with InternalError: %v", err)
	}
	if n := s.Requests("StartInstances"); n != otherAttempts {
		t.Errorf("%d StartInstances requests, want %d", n, otherAttempts)
	}
}

// One instance in the wrong state fails a whole EC2 request; the source
// halves the batch until the failure is pinned to that instance, and the
// others are acted on.
func TestPartialBatchFailure(t *testing.T) {
	ctx := context.Background()
	s := newStandin(t, "us-east-1")
	var all []string
	for i := range 8 {
		id := fmt.Sprintf("i-%02d", i)
		all = append(all, id)
		s.AddInstance(awsfake.Instance{ID: id, Region: "us-east-1", State: "stopped", Tags: office})
	}
	src := newSource(t, s, []string{"us-east-1"})
	if _, err := src.List(ctx); err != nil {
		t.Fatal(err)
	}
	s.SetInstanceState("i-02", "stopping", "")
	s.Refuse("i-05", "InsufficientInstanceCapacity", -1)
	errs := src.Act(ctx, fleet.ActionStart, all)
	if len(errs) != 2 {
		t.Fatalf("errors %v, want i-02 and i-05", errs)
	}
	for id, code := range map[string]string{"i-02": "IncorrectInstanceState", "i-05": "InsufficientInstanceCapacity"} {
		var ae *ActionError
		if !errors.As(errs[id], &ae) || ae.Code() != code || !strings.Contains(ae.Error(), "start "+id+": "+code) {
			t.Errorf("%s: %v, want %s", id, errs[id], code)
		}
	}
	for _, id := range all {
		in, _ := s.Instance(id)
		if want := map[string]string{"i-02": "stopping", "i-05": "stopped"}[id]; want != "" {
			if in.State != want {
				t.Errorf("%s %s, want %s", id, in.State, want)
			}
		} else if in.State != "running" {
			t.Errorf("%s %s, want running", id, in.State)
		}
	}
	var lines []string
	for _, c := range s.Calls() {
		lines = append(lines, c.String())
	}
	want := []string{
		"us-east-1 StartInstances i-00,i-01,i-02,i-03,i-04,i-05,i-06,i-07 -> IncorrectInstanceState",
		"us-east-1 StartInstances i-00,i-01,i-02,i-03 -> IncorrectInstanceState",
		"us-east-1 StartInstances i-00,i-01",
		"us-east-1 StartInstances i-02,i-03 -> IncorrectInstanceState",
		"us-east-1 StartInstances i-02 -> IncorrectInstanceState",
		"us-east-1 StartInstances i-03",
		"us-east-1 StartInstances i-04,i-05,i-06,i-07 -> InsufficientInstanceCapacity",
		"us-east-1 StartInstances i-04,i-05 -> InsufficientInstanceCapacity",
		"us-east-1 StartInstances i-04",
		"us-east-1 StartInstances i-05 -> InsufficientInstanceCapacity",
		"us-east-1 StartInstances i-06,i-07",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("requests:\n  %s\nwant\n  %s", strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}
}

// More than 1,000 instances of a region go in requests of at most 1,000;
// regions get their own requests.
func TestBatchesSplitAtAThousand(t *testing.T) {
	ctx := context.Background()
	s := newStandin(t, "us-east-1", "eu-west-1")
	var all []string
	for i := range 2300 {
		region := "us-east-1"
		if i%10 == 0 {
			region = "eu-west-1"
		}
		id := fmt.Sprintf("i-%05d", i)
		all = append(all, id)
		s.AddInstance(awsfake.Instance{ID: id, Region: region, State: "running", Tags: office})
	}
	src := newSource(t, s, nil, ServiceEC2)
	rs, err := src.List(ctx)
	if err != nil || len(rs) != 2300 {
		t.Fatalf("listed %d, %v", len(rs), err)
	}
	if errs := src.Act(ctx, fleet.ActionStop, all); len(errs) != 0 {
		t.Fatalf("errors: %d, first %v", len(errs), errs[all[0]])
	}
	sizes := map[string][]int{}
	for _, c := range s.Calls() {
		sizes[c.Region] = append(sizes[c.Region], len(c.IDs))
	}
	total := 0
	for region, ns := range sizes {
		for _, n := range ns {
			if n > 1000 {
				t.Errorf("%s: a request with %d ids", region, n)
			}
			total += n
		}
	}
	if len(sizes["us-east-1"]) != 3 || len(sizes["eu-west-1"]) != 1 || total != 2300 {
		t.Errorf("request sizes %v", sizes)
	}
}

// Without --aws-region every region enabled for the account is listed.
func TestAllEnabledRegions(t *testing.T) {
	s := newStandin(t, "ap-southeast-2", "us-east-1", "eu-central-1")
	s.AddInstance(awsfake.Instance{ID: "i-syd", Region: "ap-southeast-2", State: "running", Tags: office})
	s.AddInstance(awsfake.Instance{ID: "i-fra", Region: "eu-central-1", State: "running", Tags: office})
	rs, err := newSource(t, s, nil).List(context.Background())
	if err != nil || !reflect.DeepEqual(ids(rs), []string{"i-fra", "i-syd"}) {
		t.Fatalf("%v, %v", ids(rs), err)
	}
	if n := s.Requests("DescribeRegions"); n != 1 {
		t.Errorf("%d DescribeRegions", n)
	}
}

// A resource whose schedule tags were all removed is listed once more,
// with its remaining tags, so the scheduler sees the tags go; then it
// leaves the inventory.
func TestRemovedTagsSeenOnce(t *testing.T) {
	ctx := context.Background()
	s := newStandin(t, "us-east-1")
	s.AddInstance(awsfake.Instance{ID: "i-1", Region: "us-east-1", State: "running", Tags: with(office, "team", "web")})
	db := awsfake.DB{Region: "us-east-1", Identifier: "db", Status: "available", Tags: office}
	s.AddDB(db)
	src := newSource(t, s, []string{"us-east-1"})
	if rs, err := src.List(ctx); err != nil || len(rs) != 2 {
		t.Fatalf("%v, %v", rs, err)
	}
	for k := range office {
		s.SetInstanceTag("i-1", k, "")
	}
	db.Tags = map[string]string{"team": "data"}
	s.AddDB(db)
	rs, err := src.List(ctx)
	if err != nil || len(rs) != 2 || !reflect.DeepEqual(rs[1].Tags, map[string]string{"team": "web"}) || rs[0].Tags["team"] != "data" {
		t.Fatalf("second listing %+v, %v", rs, err)
	}
	if rs, err := src.List(ctx); err != nil || len(rs) != 0 {
		t.Fatalf("third listing %+v, %v", rs, err)
	}
}

func TestListFailures(t *testing.T) {
	ctx := context.Background()
	s := newStandin(t, "us-east-1")
	src := newSource(t, s, []string{"us-east-1"})
	// Throttling without end: the inventory gives up at its timeout.
	src.cfg.ListTimeout = 200 * time.Millisecond
	s.Throttle(1 << 30)
	if _, err := src.List(ctx); err == nil || !strings.Contains(err.Error(), "RequestLimitExceeded") && !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("list throttled for ever: %v", err)
	}
	s.Throttle(0)
	s.Close()
	if _, err := src.List(ctx); err == nil || !strings.Contains(err.Error(), "aws: us-east-1: EC2:") {
		t.Fatalf("list from a closed endpoint: %v", err)
	}
	if errs := src.Act(ctx, fleet.ActionStop, []string{"i-unknown"}); errs["i-unknown"] == nil ||
		!strings.Contains(errs["i-unknown"].Error(), "stop i-unknown: not in the last AWS inventory") {
		t.Fatalf("act on an unknown instance: %v", errs)
	}
	for _, cfg := range []Config{{Regions: []string{"US East"}}, {Services: []string{"s3"}}} {
		cfg.AWS = &aws.Config{}
		if _, err := New(ctx, cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestParseID(t *testing.T) {
	tests := []struct {
		id   string
		want entry
		ok   bool
	}{
		{"arn:aws:rds:eu-west-1:123456789012:db:orders", entry{region: "eu-west-1", kind: kindDBInstance, ident: "orders"}, true},
		{"arn:aws:rds:us-east-1:123456789012:cluster:ledger", entry{region: "us-east-1", kind: kindDBCluster, ident: "ledger"}, true},
		{"arn:aws:rds:us-east-1:123456789012:snapshot:x", entry{}, false},
		{"arn:aws:ec2:us-east-1:123456789012:instance/i-1", entry{}, false},
		{"i-0abc", entry{}, false},
		{"arn:aws:rds:US:1:db:x", entry{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, ok := parseID(tt.id)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseID = %+v, %v", got, ok)
			}
		})
	}
}

// FuzzParseID: any string is either refused or yields a valid region, a
// kind and an identifier, without panicking.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"arn:aws:rds:eu-west-1:123456789012:db:orders", "arn:aws:rds:us-east-1:1:cluster:x", "i-0abc", "arn:::::::", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		e, ok := parseID(id)
		if ok && (!ValidRegion(e.region) || e.ident == "" || (e.kind != kindDBInstance && e.kind != kindDBCluster)) {
			t.Fatalf("parseID(%q) = %+v", id, e)
		}
	})
}

// Without Config.Endpoint, the SDK's own endpoint variables choose where
// requests go (docs/aws.md): AWS_ENDPOINT_URL for every service, and
// AWS_ENDPOINT_URL_EC2 for one. Before, the clients overwrote the endpoint
// the SDK resolved with nil and asked AWS itself.
func TestSDKEndpointVariables(t *testing.T) {
	for _, tc := range []struct{ name, variable string }{
		{"every service", "AWS_ENDPOINT_URL"},
		{"per service", "AWS_ENDPOINT_URL_EC2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStandin(t, "us-east-1")
			s.AddInstance(awsfake.Instance{ID: "i-env", Region: "us-east-1", State: "running", Tags: office})
			t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
			t.Setenv("AWS_REGION", "us-east-1")
			t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			t.Setenv(tc.variable, s.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			src, err := New(ctx, Config{Regions: []string{"us-east-1"}, Services: []string{ServiceEC2}, Backoff: noDelay, ListTimeout: 15 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			rs, err := src.List(ctx)
			if err != nil {
				t.Fatalf("List with %s set: %v", tc.variable, err)
			}
			if got := ids(rs); !reflect.DeepEqual(got, []string{"i-env"}) {
				t.Fatalf("listed %v, want [i-env] from the stand-in", got)
			}
			if s.Requests("DescribeInstances") != 1 {
				t.Errorf("the stand-in saw %d DescribeInstances, want 1", s.Requests("DescribeInstances"))
			}
		})
	}
}
