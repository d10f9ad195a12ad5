package awsinventory

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/almanac-sh/almanac/internal/fleet"
)

// maxBatch is the most instance ids one StartInstances or StopInstances
// request carries.
const maxBatch = 1000

// maxFilterValues is the most values one EC2 filter takes.
const maxFilterValues = 200

// hibernateReason is the state reason of an instance stopped by
// hibernation.
const hibernateReason = "Client.UserInitiatedHibernate"

// liveStates are the instance states listed; shutting-down and terminated
// instances are gone for good and dropped.
var liveStates = []string{"pending", "running", "stopping", "stopped"}

// listEC2 lists one region's instances that carry a schedule tag (the
// tag-key filter runs on AWS's side), then those that carried one at the
// previous listing and no longer match.
func (s *Source) listEC2(ctx context.Context, region string, prev map[string]entry, l *listed) error {
	c := s.ec2Client(region)
	seen := map[string]bool{}
	err := s.describeInstances(ctx, c, []types.Filter{
		{Name: aws.String("tag-key"), Values: []string{fleet.PrefixAlmanac + "*", fleet.PrefixProsperOps + "*"}},
		{Name: aws.String("instance-state-name"), Values: liveStates},
	}, region, seen, l)
	if err != nil {
		return err
	}
	var gone []string
	for id, e := range prev {
		if e.kind == kindEC2 && e.region == region && !seen[id] {
			gone = append(gone, e.ident)
		}
	}
	slices.Sort(gone)
	for chunk := range slices.Chunk(gone, maxFilterValues) {
		err := s.describeInstances(ctx, c, []types.Filter{
			{Name: aws.String("instance-id"), Values: chunk},
			{Name: aws.String("instance-state-name"), Values: liveStates},
		}, region, seen, l)
		if err != nil {
			return err
		}
	}
	return nil
}

// describeInstances pages through DescribeInstances with filters, adding
// each instance not seen yet.
func (s *Source) describeInstances(ctx context.Context, c *ec2.Client, filters []types.Filter, region string, seen map[string]bool, l *listed) error {
	p := ec2.NewDescribeInstancesPaginator(c, &ec2.DescribeInstancesInput{Filters: filters, MaxResults: aws.Int32(maxBatch)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, rv := range out.Reservations {
			for i := range rv.Instances {
				r, e, ok := instanceResource(&rv.Instances[i], region)
				if ok && !seen[r.ID] {
					seen[r.ID] = true
					l.add(r, e)
				}
			}
		}
	}
	return nil
}

// instanceResource maps an instance: pending and running are running,
// stopping and stopped are stopped, or hibernated when the state reason
// says the stop was a hibernation; other states are dropped.
func instanceResource(in *types.Instance, region string) (fleet.Resource, entry, bool) {
	id := aws.ToString(in.InstanceId)
	if id == "" || in.State == nil {
		return fleet.Resource{}, entry{}, false
	}
	var st fleet.State
	switch in.State.Name {
	case types.InstanceStateNamePending, types.InstanceStateNameRunning:
		st = fleet.Running
	case types.InstanceStateNameStopping, types.InstanceStateNameStopped:
		st = fleet.Stopped
		if in.StateReason != nil && aws.ToString(in.StateReason.Code) == hibernateReason {
			st = fleet.Hibernated
		}
	default:
		return fleet.Resource{}, entry{}, false
	}
	tags := make(map[string]string, len(in.Tags))
	for _, t := range in.Tags {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	name := tags["Name"]
	if name == "" {
		name = id
	}
	hib := in.HibernationOptions != nil && aws.ToBool(in.HibernationOptions.Configured)
	r := fleet.Resource{ID: id, Name: name, State: st, Tags: tags, SupportsHibernation: hib}
	return r, entry{region: region, kind: kindEC2, ident: id, hibernate: hib, scheduled: scheduleTagged(tags)}, true
}

// actEC2 acts on up to maxBatch instances of one region with one request.
// When the request fails as a whole with an AWS error (one instance in the
// wrong state fails them all), the ids are halved and each half tried
// again, until every failure is pinned to its instance: k bad instances
// among n cost about 2k·log2(n) extra requests, not n.
func (s *Source) actEC2(ctx context.Context, c *ec2.Client, a fleet.Action, ids []string, res *results) {
	changed, err := callEC2(ctx, c, a, ids)
	if err == nil {
		for _, id := range ids {
			if !changed[id] {
				res.set(id, &ActionError{Action: a, ID: id, Err: errors.New("missing from AWS's answer")})
			}
		}
		return
	}
	var api smithy.APIError
	if len(ids) == 1 || !errors.As(err, &api) || throttling(err) || ctx.Err() != nil {
		for _, id := range ids {
			res.set(id, &ActionError{Action: a, ID: id, Err: err})
		}
		return
	}
	half := len(ids) / 2
	s.actEC2(ctx, c, a, ids[:half], res)
	s.actEC2(ctx, c, a, ids[half:], res)
}

// callEC2 sends one StartInstances or StopInstances request and returns
// the ids AWS reports a state change for.
func callEC2(ctx context.Context, c *ec2.Client, a fleet.Action, ids []string) (map[string]bool, error) {
	var changes []types.InstanceStateChange
	switch a {
	case fleet.ActionStart:
		out, err := c.StartInstances(ctx, &ec2.StartInstancesInput{InstanceIds: ids})
		if err != nil {
			return nil, err
		}
		changes = out.StartingInstances
	case fleet.ActionStop, fleet.ActionHibernate:
		in := &ec2.StopInstancesInput{InstanceIds: ids}
		if a == fleet.ActionHibernate {
			in.Hibernate = aws.Bool(true)
		}
		out, err := c.StopInstances(ctx, in)
		if err != nil {
			return nil, err
		}
		changes = out.StoppingInstances
	default:
		return nil, fmt.Errorf("unknown action %q", a)
	}
	got := make(map[string]bool, len(changes))
	for _, ch := range changes {
		got[aws.ToString(ch.InstanceId)] = true
	}
	return got, nil
}
