// Package awsinventory is a fleet inventory source for Amazon Web Services:
// it finds the EC2 instances, RDS DB instances and Aurora DB clusters that
// carry schedule tags, in the configured regions or every region enabled
// for the account, and starts, stops and hibernates them through the
// official AWS SDK for Go. Credentials come from the SDK's default chain
// (environment, shared config and profiles, web identity, instance role).
//
// EC2 actions are batched: one StartInstances or StopInstances request per
// region for up to 1,000 instances, split beyond; a request that fails as a
// whole is halved until each failure is pinned to its instance, so one
// instance in the wrong state fails alone. Throttling is retried by the
// SDK's adaptive retryer for as long as the action may take and never
// counts as a failed action.
package awsinventory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/rds"

	"github.com/almanac-sh/almanac/internal/fleet"
)

// The services a Source can manage.
const (
	ServiceEC2 = "ec2"
	ServiceRDS = "rds"
)

// Config configures a Source.
type Config struct {
	// Regions to inventory; empty means every region enabled for the
	// account, asked of EC2 (DescribeRegions) at each inventory.
	Regions []string
	// Services to inventory: ServiceEC2, ServiceRDS; empty means both.
	Services []string
	// Endpoint replaces the AWS endpoint of both services (a test stand-in,
	// a proxy); empty means AWS's own, or the SDK's AWS_ENDPOINT_URL.
	Endpoint string
	// AWS is the SDK configuration; nil loads the default one (credentials
	// and region from the environment, shared files or instance role).
	AWS *aws.Config
	// Backoff replaces the SDK's delay between retries (tests make it 0).
	Backoff retry.BackoffDelayer
	// Parallelism bounds concurrent RDS actions, which take one database
	// per request (default 8).
	Parallelism int
	// ListTimeout bounds one inventory, throttled retries included
	// (default 2 minutes); actions are bounded by the scheduler.
	ListTimeout time.Duration
}

// Source lists and acts on AWS resources. It implements fleet.BatchSource
// and is safe for concurrent use.
type Source struct {
	cfg      Config
	aws      aws.Config
	ec2On    bool
	rdsOn    bool
	fallback string // region that answers DescribeRegions

	mu    sync.Mutex
	ec2c  map[string]*ec2.Client
	rdsc  map[string]*rds.Client
	known map[string]entry // the last listing, by resource id
}

var _ fleet.BatchSource = (*Source)(nil)

// kind is what sort of AWS resource an id names.
type kind int

const (
	kindEC2 kind = iota
	kindDBInstance
	kindDBCluster
)

// entry is what the source remembers of a listed resource to act on it.
type entry struct {
	region    string
	kind      kind
	ident     string // instance id or DB identifier
	hibernate bool   // EC2 HibernationOptions.Configured
	scheduled bool   // carried a schedule tag
}

// New returns a Source for cfg, loading the SDK's default configuration
// when cfg.AWS is nil. It makes no request.
func New(ctx context.Context, cfg Config) (*Source, error) {
	s := &Source{cfg: cfg, ec2c: map[string]*ec2.Client{}, rdsc: map[string]*rds.Client{}, known: map[string]entry{}}
	if s.cfg.Parallelism <= 0 {
		s.cfg.Parallelism = 8
	}
	if s.cfg.ListTimeout <= 0 {
		s.cfg.ListTimeout = 2 * time.Minute
	}
	if len(cfg.Services) == 0 {
		s.ec2On, s.rdsOn = true, true
	}
	for _, svc := range cfg.Services {
		switch svc {
		case ServiceEC2:
			s.ec2On = true
		case ServiceRDS:
			s.rdsOn = true
		default:
			return nil, fmt.Errorf("aws: unknown service %q (want %s or %s)", svc, ServiceEC2, ServiceRDS)
		}
	}
	for _, r := range cfg.Regions {
		if !ValidRegion(r) {
			return nil, fmt.Errorf("aws: %q is not a region name (like us-east-1)", r)
		}
	}
	if cfg.AWS != nil {
		s.aws = cfg.AWS.Copy()
	} else {
		c, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("aws: load configuration: %w", err)
		}
		s.aws = c
	}
	s.fallback = s.aws.Region
	if s.fallback == "" {
		s.fallback = "us-east-1"
	}
	return s, nil
}

// ValidRegion reports whether r is a region name: lower-case letters,
// digits and dashes, like us-east-1.
func ValidRegion(r string) bool {
	if r == "" || len(r) > 64 {
		return false
	}
	for _, c := range r {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// ec2Client returns the EC2 client of a region.
func (s *Source) ec2Client(region string) *ec2.Client {
	return regional(&s.mu, s.ec2c, region, func() *ec2.Client {
		return ec2.NewFromConfig(s.aws, func(o *ec2.Options) {
			o.Region, o.Retryer = region, newRetryer(s.cfg.Backoff)
			s.overrideEndpoint(&o.BaseEndpoint)
		})
	})
}

// rdsClient returns the RDS client of a region.
func (s *Source) rdsClient(region string) *rds.Client {
	return regional(&s.mu, s.rdsc, region, func() *rds.Client {
		return rds.NewFromConfig(s.aws, func(o *rds.Options) {
			o.Region, o.Retryer = region, newRetryer(s.cfg.Backoff)
			s.overrideEndpoint(&o.BaseEndpoint)
		})
	})
}

// overrideEndpoint replaces a client's base endpoint with the configured
// one. Without one it leaves what the SDK resolved (AWS_ENDPOINT_URL,
// AWS_ENDPOINT_URL_EC2/_RDS, the shared config's endpoint_url) in place:
// nil there would send requests to AWS's own endpoints.
func (s *Source) overrideEndpoint(base **string) {
	if s.cfg.Endpoint != "" {
		*base = aws.String(s.cfg.Endpoint)
	}
}

// regional returns the client of region from cache, building it on first
// use; mu guards cache.
func regional[C any](mu *sync.Mutex, cache map[string]C, region string, build func() C) C {
	mu.Lock()
	defer mu.Unlock()
	c, ok := cache[region]
	if !ok {
		c = build()
		cache[region] = c
	}
	return c
}

// regions returns the configured regions, or those enabled for the account.
func (s *Source) regions(ctx context.Context) ([]string, error) {
	if len(s.cfg.Regions) > 0 {
		return s.cfg.Regions, nil
	}
	out, err := s.ec2Client(s.fallback).DescribeRegions(ctx, &ec2.DescribeRegionsInput{})
	if err != nil {
		return nil, fmt.Errorf("aws: list enabled regions: %w", err)
	}
	var rs []string
	for _, r := range out.Regions {
		if n := aws.ToString(r.RegionName); ValidRegion(n) {
			rs = append(rs, n)
		}
	}
	slices.Sort(rs)
	if len(rs) == 0 {
		return nil, errors.New("aws: no region is enabled for the account")
	}
	return rs, nil
}

// listed is one region's share of a listing.
type listed struct {
	res  []fleet.Resource
	ents []entry
}

func (l *listed) add(r fleet.Resource, e entry) {
	l.res = append(l.res, r)
	l.ents = append(l.ents, e)
}

// List returns every EC2 instance, RDS DB instance and Aurora cluster in
// the regions that carries a schedule tag, plus, once more, each one that
// carried one at the previous listing and no longer does (so its removed
// tags are seen and notified). Regions are listed in parallel; a failure in
// any fails the whole listing.
func (s *Source) List(ctx context.Context) ([]fleet.Resource, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ListTimeout)
	defer cancel()
	regions, err := s.regions(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	prev := make(map[string]entry, len(s.known))
	for id, e := range s.known {
		if e.scheduled {
			prev[id] = e
		}
	}
	s.mu.Unlock()

	parts := make([]listed, len(regions))
	errs := make([]error, len(regions))
	var wg sync.WaitGroup
	for i, region := range regions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.listRegion(ctx, region, prev, &parts[i])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	known := map[string]entry{}
	var out []fleet.Resource
	for _, p := range parts {
		for i, r := range p.res {
			if e, dup := known[r.ID]; dup {
				return nil, fmt.Errorf("aws: %s is listed in both %s and %s", r.ID, e.region, p.ents[i].region)
			}
			known[r.ID] = p.ents[i]
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b fleet.Resource) int { return cmp.Compare(a.ID, b.ID) })
	s.mu.Lock()
	s.known = known
	s.mu.Unlock()
	return out, nil
}

// listRegion lists one region's resources into l.
func (s *Source) listRegion(ctx context.Context, region string, prev map[string]entry, l *listed) error {
	if s.ec2On {
		if err := s.listEC2(ctx, region, prev, l); err != nil {
			return fmt.Errorf("aws: %s: EC2: %w", region, err)
		}
	}
	if s.rdsOn {
		if err := s.listRDS(ctx, region, prev, l); err != nil {
			return fmt.Errorf("aws: %s: RDS: %w", region, err)
		}
	}
	return nil
}

// scheduleTagged reports whether tags has a key with a schedule prefix, the
// test EC2's tag-key filter applies on the server.
func scheduleTagged(tags map[string]string) bool {
	for k := range tags {
		if strings.HasPrefix(k, fleet.PrefixAlmanac) || strings.HasPrefix(k, fleet.PrefixProsperOps) {
			return true
		}
	}
	return false
}

// Start starts one resource.
func (s *Source) Start(ctx context.Context, id string) error {
	return s.Act(ctx, fleet.ActionStart, []string{id})[id]
}

// Stop stops one resource.
func (s *Source) Stop(ctx context.Context, id string) error {
	return s.Act(ctx, fleet.ActionStop, []string{id})[id]
}

// Hibernate hibernates one EC2 instance.
func (s *Source) Hibernate(ctx context.Context, id string) error {
	return s.Act(ctx, fleet.ActionHibernate, []string{id})[id]
}

// results collects per-id errors from concurrent work.
type results struct {
	mu   sync.Mutex
	errs map[string]error
}

func (r *results) set(id string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[id] = err
}

// Act performs a on the ids: EC2 instances in batches per region, RDS
// databases one request each (RDS has no batch call), everything in
// parallel. It answers for each id on its own.
func (s *Source) Act(ctx context.Context, a fleet.Action, ids []string) map[string]error {
	res := &results{errs: map[string]error{}}
	ec2By := map[string][]string{} // region -> instance ids
	var dbs []entry
	var dbIDs []string
	s.mu.Lock()
	for _, id := range ids {
		e, ok := s.known[id]
		if !ok {
			e, ok = parseID(id)
		}
		switch {
		case !ok:
			res.errs[id] = &ActionError{Action: a, ID: id, Err: errors.New("not in the last AWS inventory")}
		case e.kind == kindEC2 && a == fleet.ActionHibernate && !e.hibernate:
			res.errs[id] = &ActionError{Action: a, ID: id, Err: errors.New("instance does not support hibernation (hibernation is not configured)")}
		case e.kind == kindEC2:
			ec2By[e.region] = append(ec2By[e.region], e.ident)
		case a == fleet.ActionHibernate:
			res.errs[id] = &ActionError{Action: a, ID: id, Err: errors.New("RDS databases cannot hibernate")}
		default:
			dbs = append(dbs, e)
			dbIDs = append(dbIDs, id)
		}
	}
	s.mu.Unlock()

	var wg sync.WaitGroup
	for region, insts := range ec2By {
		for chunk := range slices.Chunk(insts, maxBatch) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.actEC2(ctx, s.ec2Client(region), a, chunk, res)
			}()
		}
	}
	sem := make(chan struct{}, s.cfg.Parallelism)
	for i, e := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := s.actRDS(ctx, a, e); err != nil {
				res.set(dbIDs[i], &ActionError{Action: a, ID: dbIDs[i], Err: err})
			}
		}()
	}
	wg.Wait()
	return res.errs
}

// parseID recovers the region and kind of an RDS ARN not seen by this
// process's inventories (after a restart, before the first one).
func parseID(id string) (entry, bool) {
	// arn:aws:rds:REGION:ACCOUNT:db:NAME or ...:cluster:NAME
	p := strings.Split(id, ":")
	if len(p) != 7 || p[0] != "arn" || p[2] != "rds" || !ValidRegion(p[3]) || p[6] == "" {
		return entry{}, false
	}
	switch p[5] {
	case "db":
		return entry{region: p[3], kind: kindDBInstance, ident: p[6]}, true
	case "cluster":
		return entry{region: p[3], kind: kindDBCluster, ident: p[6]}, true
	}
	return entry{}, false
}
