package awsinventory

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/aws-sdk-go-v2/service/rds/types"
	"github.com/aws/smithy-go"

	"github.com/almanac-sh/almanac/internal/fleet"
)

// rdsState maps an RDS status: stopped and stopping are stopped, deleting
// is dropped, every other status (available, starting, backing-up,
// modifying, ...) is running: the database is up and billed.
func rdsState(status string) (fleet.State, bool) {
	switch status {
	case "stopped", "stopping":
		return fleet.Stopped, true
	case "deleting", "deleted", "":
		return "", false
	}
	return fleet.Running, true
}

func tagMap(tl []types.Tag) map[string]string {
	m := make(map[string]string, len(tl))
	for _, t := range tl {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

// listRDS lists one region's DB instances and DB clusters that carry a
// schedule tag (RDS has no tag filter: the tags come with each database),
// and those that carried one at the previous listing. DB instances of an
// Aurora cluster are left out: they start and stop with their cluster.
func (s *Source) listRDS(ctx context.Context, region string, prev map[string]entry, l *listed) error {
	c := s.rdsClient(region)
	keep := func(arn, ident string, k kind, status string, tags map[string]string) {
		st, ok := rdsState(status)
		if !ok || arn == "" {
			return
		}
		sched := scheduleTagged(tags)
		if _, was := prev[arn]; !sched && !was {
			return
		}
		l.add(fleet.Resource{ID: arn, Name: ident, State: st, Tags: tags},
			entry{region: region, kind: k, ident: ident, scheduled: sched})
	}
	ip := rds.NewDescribeDBInstancesPaginator(c, &rds.DescribeDBInstancesInput{MaxRecords: aws.Int32(100)})
	for ip.HasMorePages() {
		out, err := ip.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, d := range out.DBInstances {
			if aws.ToString(d.DBClusterIdentifier) != "" {
				continue
			}
			keep(aws.ToString(d.DBInstanceArn), aws.ToString(d.DBInstanceIdentifier), kindDBInstance, aws.ToString(d.DBInstanceStatus), tagMap(d.TagList))
		}
	}
	cp := rds.NewDescribeDBClustersPaginator(c, &rds.DescribeDBClustersInput{MaxRecords: aws.Int32(100)})
	for cp.HasMorePages() {
		out, err := cp.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, d := range out.DBClusters {
			keep(aws.ToString(d.DBClusterArn), aws.ToString(d.DBClusterIdentifier), kindDBCluster, aws.ToString(d.Status), tagMap(d.TagList))
		}
	}
	return nil
}

// actRDS starts or stops one database. RDS refuses to stop a database that
// is not available and to start one that is not stopped; when it refuses
// because the database is already where the action would take it (stopped
// or stopping for a stop), the action has nothing left to do and succeeds.
func (s *Source) actRDS(ctx context.Context, a fleet.Action, e entry) error {
	c := s.rdsClient(e.region)
	start := a == fleet.ActionStart
	var err error
	switch {
	case e.kind == kindDBInstance && start:
		_, err = c.StartDBInstance(ctx, &rds.StartDBInstanceInput{DBInstanceIdentifier: aws.String(e.ident)})
	case e.kind == kindDBInstance:
		_, err = c.StopDBInstance(ctx, &rds.StopDBInstanceInput{DBInstanceIdentifier: aws.String(e.ident)})
	case start:
		_, err = c.StartDBCluster(ctx, &rds.StartDBClusterInput{DBClusterIdentifier: aws.String(e.ident)})
	default:
		_, err = c.StopDBCluster(ctx, &rds.StopDBClusterInput{DBClusterIdentifier: aws.String(e.ident)})
	}
	var api smithy.APIError
	if err == nil || !errors.As(err, &api) {
		return err
	}
	switch api.ErrorCode() {
	case "InvalidDBInstanceState", "InvalidDBInstanceStateFault", "InvalidDBClusterStateFault":
	default:
		return err
	}
	status, derr := s.rdsStatus(ctx, c, e)
	if derr != nil {
		return err
	}
	if st, ok := rdsState(status); ok && st == a.Target() {
		return nil
	}
	return fmt.Errorf("%w (status %s)", err, status)
}

// rdsStatus returns the current status of one database.
func (s *Source) rdsStatus(ctx context.Context, c *rds.Client, e entry) (string, error) {
	if e.kind == kindDBInstance {
		out, err := c.DescribeDBInstances(ctx, &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String(e.ident)})
		if err != nil || len(out.DBInstances) == 0 {
			return "", errors.Join(err, errors.New("not found"))
		}
		return aws.ToString(out.DBInstances[0].DBInstanceStatus), nil
	}
	out, err := c.DescribeDBClusters(ctx, &rds.DescribeDBClustersInput{DBClusterIdentifier: aws.String(e.ident)})
	if err != nil || len(out.DBClusters) == 0 {
		return "", errors.Join(err, errors.New("not found"))
	}
	return aws.ToString(out.DBClusters[0].Status), nil
}
