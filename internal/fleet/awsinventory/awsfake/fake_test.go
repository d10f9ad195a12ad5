package awsfake

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/smithy-go"
)

func clients(t *testing.T, s *Server, region string) (*ec2.Client, *rds.Client) {
	t.Helper()
	cfg := aws.Config{
		Region:           region,
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		RetryMaxAttempts: 1,
	}
	e := ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = aws.String(s.URL) })
	r := rds.NewFromConfig(cfg, func(o *rds.Options) { o.BaseEndpoint = aws.String(s.URL) })
	return e, r
}

func apiCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// Every answer the stand-in gives is parsed by the real SDK into the values
// the stand-in holds: the shapes are the API's, not the stand-in's own.
func TestSDKParsesEveryAnswer(t *testing.T) {
	ctx := context.Background()
	s := New("us-east-1", "eu-west-1")
	defer s.Close()
	s.AddInstance(Instance{ID: "i-0aaa", Region: "us-east-1", State: "stopped", StateReason: "Client.UserInitiatedHibernate",
		Tags: map[string]string{"Name": "web <1> & co", "almanac-schedule-stop": "mon1800"}, Hibernation: true})
	s.AddInstance(Instance{ID: "i-0bbb", Region: "us-east-1", State: "running"})
	s.AddInstance(Instance{ID: "i-0ccc", Region: "eu-west-1", State: "running"})
	s.AddDB(DB{Region: "us-east-1", Identifier: "orders", Status: "available", Tags: map[string]string{"prosperops-schedule-power-off": "fri2000"}})
	s.AddDB(DB{Region: "us-east-1", Identifier: "orders-1", ClusterID: "ledger", Status: "available"})
	s.AddDB(DB{Region: "us-east-1", Identifier: "ledger", Cluster: true, Status: "stopped"})
	e, r := clients(t, s, "us-east-1")

	t.Run("DescribeRegions", func(t *testing.T) {
		out, err := e.DescribeRegions(ctx, &ec2.DescribeRegionsInput{})
		if err != nil || len(out.Regions) != 2 || aws.ToString(out.Regions[1].RegionName) != "eu-west-1" ||
			aws.ToString(out.Regions[0].Endpoint) != "ec2.us-east-1.amazonaws.com" {
			t.Fatalf("%+v, %v", out, err)
		}
	})
	t.Run("DescribeInstances", func(t *testing.T) {
		out, err := e.DescribeInstances(ctx, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5)})
		if err != nil || len(out.Reservations) != 2 || out.NextToken != nil {
			t.Fatalf("%+v, %v", out, err)
		}
		rv := out.Reservations[0]
		in := rv.Instances[0]
		if aws.ToString(rv.OwnerId) != Account || aws.ToString(in.InstanceId) != "i-0aaa" ||
			in.State.Name != ec2types.InstanceStateNameStopped || aws.ToInt32(in.State.Code) != 80 ||
			aws.ToString(in.StateReason.Code) != "Client.UserInitiatedHibernate" ||
			!aws.ToBool(in.HibernationOptions.Configured) || len(in.Tags) != 2 ||
			aws.ToString(in.Tags[0].Key) != "Name" || aws.ToString(in.Tags[0].Value) != "web <1> & co" ||
			aws.ToString(in.Placement.AvailabilityZone) != "us-east-1a" || in.LaunchTime == nil {
			t.Fatalf("instance %+v", in)
		}
		if b := out.Reservations[1].Instances[0]; aws.ToString(b.InstanceId) != "i-0bbb" || b.State.Name != ec2types.InstanceStateNameRunning ||
			b.StateReason != nil || aws.ToBool(b.HibernationOptions.Configured) || len(b.Tags) != 0 {
			t.Fatalf("instance %+v", b)
		}
	})
	t.Run("DescribeInstances pages and filters", func(t *testing.T) {
		out, err := e.DescribeInstances(ctx, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(1)})
		if err != nil || len(out.Reservations) != 1 || aws.ToString(out.NextToken) != "1" {
			t.Fatalf("%+v, %v", out, err)
		}
		out, err = e.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
			{Name: aws.String("tag-key"), Values: []string{"almanac-schedule-*"}}}})
		if err != nil || len(out.Reservations) != 1 || aws.ToString(out.Reservations[0].Instances[0].InstanceId) != "i-0aaa" {
			t.Fatalf("%+v, %v", out, err)
		}
	})
	t.Run("StopInstances", func(t *testing.T) {
		out, err := e.StopInstances(ctx, &ec2.StopInstancesInput{InstanceIds: []string{"i-0bbb"}, Hibernate: aws.Bool(false)})
		if err != nil || len(out.StoppingInstances) != 1 {
			t.Fatalf("%+v, %v", out, err)
		}
		ch := out.StoppingInstances[0]
		if aws.ToString(ch.InstanceId) != "i-0bbb" || ch.CurrentState.Name != ec2types.InstanceStateNameStopping ||
			ch.PreviousState.Name != ec2types.InstanceStateNameRunning || aws.ToInt32(ch.CurrentState.Code) != 64 {
			t.Fatalf("%+v", ch)
		}
	})
	t.Run("StartInstances", func(t *testing.T) {
		out, err := e.StartInstances(ctx, &ec2.StartInstancesInput{InstanceIds: []string{"i-0aaa", "i-0bbb"}})
		if err != nil || len(out.StartingInstances) != 2 || out.StartingInstances[1].CurrentState.Name != ec2types.InstanceStateNamePending {
			t.Fatalf("%+v, %v", out, err)
		}
		if c := s.Calls(); len(c) != 2 || c[1].String() != "us-east-1 StartInstances i-0aaa,i-0bbb" {
			t.Fatalf("calls %v", c)
		}
	})
	t.Run("EC2 error", func(t *testing.T) {
		_, err := e.StartInstances(ctx, &ec2.StartInstancesInput{InstanceIds: []string{"i-0ccc"}})
		if apiCode(err) != "InvalidInstanceID.NotFound" || !strings.Contains(err.Error(), "'i-0ccc' does not exist") {
			t.Fatalf("%v", err)
		}
		s.Throttle(1)
		_, err = e.DescribeInstances(ctx, &ec2.DescribeInstancesInput{})
		if apiCode(err) != "RequestLimitExceeded" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("DescribeDBInstances", func(t *testing.T) {
		out, err := r.DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{MaxRecords: aws.Int32(20)})
		if err != nil || len(out.DBInstances) != 2 || out.Marker != nil {
			t.Fatalf("%+v, %v", out, err)
		}
		d := out.DBInstances[0]
		if aws.ToString(d.DBInstanceIdentifier) != "orders" || aws.ToString(d.DBInstanceStatus) != "available" ||
			aws.ToString(d.DBInstanceArn) != "arn:aws:rds:us-east-1:123456789012:db:orders" || len(d.TagList) != 1 ||
			aws.ToString(d.TagList[0].Key) != "prosperops-schedule-power-off" || aws.ToString(d.TagList[0].Value) != "fri2000" ||
			d.DBClusterIdentifier != nil || aws.ToInt32(d.AllocatedStorage) != 20 {
			t.Fatalf("%+v", d)
		}
		if m := out.DBInstances[1]; aws.ToString(m.DBClusterIdentifier) != "ledger" {
			t.Fatalf("%+v", m)
		}
		s.SetPageSize(1)
		defer s.SetPageSize(0)
		out, err = r.DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{})
		if err != nil || len(out.DBInstances) != 1 || aws.ToString(out.Marker) != "1" {
			t.Fatalf("%+v, %v", out, err)
		}
	})
	t.Run("DescribeDBClusters", func(t *testing.T) {
		out, err := r.DescribeDBClusters(ctx, &rds.DescribeDBClustersInput{})
		if err != nil || len(out.DBClusters) != 1 {
			t.Fatalf("%+v, %v", out, err)
		}
		c := out.DBClusters[0]
		if aws.ToString(c.DBClusterIdentifier) != "ledger" || aws.ToString(c.Status) != "stopped" ||
			aws.ToString(c.DBClusterArn) != "arn:aws:rds:us-east-1:123456789012:cluster:ledger" || aws.ToString(c.Engine) != "aurora-postgresql" {
			t.Fatalf("%+v", c)
		}
	})
	t.Run("Start and stop databases", func(t *testing.T) {
		so, err := r.StopDBInstance(ctx, &rds.StopDBInstanceInput{DBInstanceIdentifier: aws.String("orders")})
		if err != nil || aws.ToString(so.DBInstance.DBInstanceStatus) != "stopping" {
			t.Fatalf("%+v, %v", so, err)
		}
		sc, err := r.StartDBCluster(ctx, &rds.StartDBClusterInput{DBClusterIdentifier: aws.String("ledger")})
		if err != nil || aws.ToString(sc.DBCluster.Status) != "starting" {
			t.Fatalf("%+v, %v", sc, err)
		}
		if _, err := r.StartDBInstance(ctx, &rds.StartDBInstanceInput{DBInstanceIdentifier: aws.String("orders")}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.StopDBCluster(ctx, &rds.StopDBClusterInput{DBClusterIdentifier: aws.String("ledger")}); err != nil {
			t.Fatal(err)
		}
		if st := s.DBStatus("us-east-1", true, "ledger"); st != "stopped" {
			t.Fatalf("ledger %s", st)
		}
	})
	t.Run("RDS errors", func(t *testing.T) {
		_, err := r.StartDBCluster(ctx, &rds.StartDBClusterInput{DBClusterIdentifier: aws.String("ledger-2")})
		if apiCode(err) != "DBClusterNotFoundFault" {
			t.Fatalf("%v", err)
		}
		_, err = r.StopDBInstance(ctx, &rds.StopDBInstanceInput{DBInstanceIdentifier: aws.String("orders-1")})
		if apiCode(err) != "InvalidParameterCombination" {
			t.Fatalf("%v", err)
		}
		_, err = r.StartDBInstance(ctx, &rds.StartDBInstanceInput{DBInstanceIdentifier: aws.String("orders")})
		if apiCode(err) != "InvalidDBInstanceState" || !strings.Contains(err.Error(), "not in stopped state") {
			t.Fatalf("%v", err)
		}
		s.Throttle(1)
		_, err = r.DescribeDBClusters(ctx, &rds.DescribeDBClustersInput{})
		if apiCode(err) != "Throttling" {
			t.Fatalf("%v", err)
		}
	})
}

// Requests the stand-in cannot take are refused with a status, never a
// panic: wrong method, no signature, a bad form, an unknown action or
// filter, a bad page token.
func TestBadRequests(t *testing.T) {
	s := New("us-east-1")
	defer s.Close()
	sig := "AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=0"
	tests := []struct {
		name, method, auth, body string
		status                   int
		want                     string
	}{
		{"GET", http.MethodGet, sig, "", http.StatusMethodNotAllowed, "POST"},
		{"unsigned", http.MethodPost, "", "Action=DescribeInstances", http.StatusForbidden, "not signed"},
		{"bad form", http.MethodPost, sig, "Action=%zz", http.StatusBadRequest, "bad form"},
		{"unknown action", http.MethodPost, sig, "Action=RunInstances", http.StatusBadRequest, "InvalidAction"},
		{"unknown filter", http.MethodPost, sig, "Action=DescribeInstances&Filter.1.Name=vpc-id&Filter.1.Value.1=x", http.StatusBadRequest, "vpc-id"},
		{"bad token", http.MethodPost, sig, "Action=DescribeInstances&NextToken=x", http.StatusBadRequest, "invalid pagination token"},
		{"no ids", http.MethodPost, sig, "Action=StopInstances", http.StatusBadRequest, "MissingParameter"},
		{"unknown service", http.MethodPost, strings.Replace(sig, "/ec2/", "/s3/", 1), "Action=ListBuckets", http.StatusBadRequest, "unknown service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, s.URL, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b strings.Builder
			buf := make([]byte, 4096)
			n, _ := resp.Body.Read(buf)
			b.Write(buf[:n])
			if resp.StatusCode != tt.status || !strings.Contains(b.String(), tt.want) {
				t.Fatalf("status %d body %q, want %d and %q", resp.StatusCode, b.String(), tt.status, tt.want)
			}
		})
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"almanac-schedule-*", "almanac-schedule-start", true},
		{"almanac-schedule-*", "almanac-schedule-", true},
		{"almanac-schedule-*", "Almanac-Schedule-start", false},
		{"almanac-schedule-*", "prosperops-schedule-start", false},
		{"i-0?b", "i-0ab", true},
		{"i-0?b", "i-0b", false},
		{"*", "", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.s, func(t *testing.T) {
			if got := glob(tt.pattern, tt.s); got != tt.want {
				t.Errorf("glob(%q, %q) = %v", tt.pattern, tt.s, got)
			}
		})
	}
}
