package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/api/apiclient"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/daemon/daemontest"
	"github.com/almanac-sh/almanac/internal/fleet/awsinventory/awsfake"
)

// `serve --inventory aws` against the EC2/RDS stand-in, on a fake clock:
// the daemon lists the tagged instances and database of both regions,
// starts them at 08:00 and stops them at 18:00 (one EC2 request per region
// and instant), with credentials from the SDK's default chain (here the
// environment).
func TestEndToEndAWSFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end daemon test; skipped with -short")
	}
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "",
		"AWS_REGION": "us-east-1", "AWS_PROFILE": "", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
		"ALMANAC_AWS_ENDPOINT": "",
	} {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	s := awsfake.New("us-east-1", "eu-west-1")
	defer s.Close()
	tags := map[string]string{"almanac-schedule-start": "mon0800", "almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc"}
	s.AddInstance(awsfake.Instance{ID: "i-0a", Region: "us-east-1", State: "stopped", Tags: map[string]string{
		"almanac-schedule-start": "mon0800", "almanac-schedule-stop": "mon1800", "almanac-schedule-timezone": "utc", "Name": "web-1"}})
	s.AddInstance(awsfake.Instance{ID: "i-0b", Region: "us-east-1", State: "stopped", Tags: tags})
	s.AddInstance(awsfake.Instance{ID: "i-0c", Region: "eu-west-1", State: "stopped", Tags: tags})
	s.AddInstance(awsfake.Instance{ID: "i-untagged", Region: "eu-west-1", State: "running"})
	db := awsfake.DB{Region: "eu-west-1", Identifier: "reports", Status: "stopped", Tags: tags}
	s.AddDB(db)

	start := time.Date(2024, 6, 3, 7, 59, 0, 0, time.UTC) // a Monday
	clk := clock.NewFake(start)
	d := daemontest.Start(t, daemontest.Options{Clock: clk, Token: e2eToken, Args: []string{"--inventory", "aws", "--aws-region", "us-east-1", "--aws-region", "eu-west-1", "--aws-endpoint", s.URL}})
	c, _ := apiclient.New(d.URL, apiclient.WithToken(e2eToken))
	if out := cliAt(t, d.URL, "inventory"); !strings.Contains(out, "4 resources") {
		t.Fatalf("inventory: %s", out)
	}
	out := cliAt(t, d.URL, "get", "resources")
	for _, want := range []string{"i-0a", "web-1", "i-0c", db.ARN(), "reports"} {
		if !strings.Contains(out, want) {
			t.Errorf("get resources has no %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "i-untagged") {
		t.Errorf("get resources lists the untagged instance:\n%s", out)
	}

	// advance moves the fake clock to at and waits until every resource is
	// in state want.
	advance := func(at time.Time, want string) {
		t.Helper()
		clk.Set(at)
		eventually(t, "every resource "+want, 30*time.Second, func() (bool, error) {
			for _, id := range []string{"i-0a", "i-0b", "i-0c", db.ARN()} {
				r, err := c.ResourceGet(ctx, id)
				if err != nil || r.State != want {
					return false, err
				}
			}
			return true, nil
		})
	}
	advance(time.Date(2024, 6, 3, 8, 0, 0, 0, time.UTC), "running")
	advance(time.Date(2024, 6, 3, 18, 0, 0, 0, time.UTC), "stopped")

	var calls []string
	for _, c := range s.Calls() {
		calls = append(calls, c.String())
	}
	got := strings.Join(calls, "\n")
	for _, want := range []string{
		"us-east-1 StartInstances i-0a,i-0b", "eu-west-1 StartInstances i-0c", "eu-west-1 StartDBInstance reports",
		"us-east-1 StopInstances i-0a,i-0b", "eu-west-1 StopInstances i-0c", "eu-west-1 StopDBInstance reports",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no request %q among\n%s", want, got)
		}
	}
	if len(calls) != 6 {
		t.Errorf("%d requests, want 6:\n%s", len(calls), got)
	}
	for _, id := range []string{"i-0a", "i-0b", "i-0c"} {
		if in, _ := s.Instance(id); in.State != "stopped" {
			t.Errorf("%s is %s", id, in.State)
		}
	}
}
