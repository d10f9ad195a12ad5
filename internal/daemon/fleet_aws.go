package daemon

import (
	"context"
	"flag"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/almanac-sh/almanac/internal/fleet"
	"github.com/almanac-sh/almanac/internal/fleet/awsinventory"
)

// awsOptions are serve's flags for the AWS inventory source.
type awsOptions struct {
	inventory string   // --inventory: "" or "aws"
	regions   listFlag // --aws-region, repeatable
	services  string   // --aws-services
	endpoint  string   // --aws-endpoint
}

// addAWSFlags registers the AWS inventory flags on fs.
func addAWSFlags(fs *flag.FlagSet, o *awsOptions) {
	fs.StringVar(&o.inventory, "inventory", "", "built-in inventory source of the managed resources: aws (EC2 instances, RDS databases and Aurora clusters with schedule tags)")
	fs.Var(&o.regions, "aws-region", "with --inventory aws: a region to manage (repeatable; default every region enabled for the account)")
	fs.StringVar(&o.services, "aws-services", "ec2,rds", "with --inventory aws: the services to manage, ec2 and/or rds, comma-separated")
	fs.StringVar(&o.endpoint, "aws-endpoint", os.Getenv("ALMANAC_AWS_ENDPOINT"), "with --inventory aws: the URL EC2 and RDS requests go to instead of AWS's endpoints, for a test stand-in or a proxy (env ALMANAC_AWS_ENDPOINT)")
}

func (o *awsOptions) on() bool { return o.inventory == "aws" }

// check validates the flags; demo and command say whether --demo or
// --inventory-command chose another source.
func (o *awsOptions) check(demo, command bool) error {
	switch {
	case o.inventory != "" && o.inventory != "aws":
		return usagef("serve: --inventory %q: the built-in source is aws (for others use --inventory-command)", o.inventory)
	case o.on() && demo:
		return usagef("serve: --demo and --inventory aws both choose the managed resources; give one")
	case o.on() && command:
		return usagef("serve: --inventory aws and --inventory-command both choose the managed resources; give one")
	case !o.on() && len(o.regions) > 0:
		return usagef("serve: --aws-region needs --inventory aws")
	}
	for _, svc := range strings.Split(o.services, ",") {
		if svc != awsinventory.ServiceEC2 && svc != awsinventory.ServiceRDS {
			return usagef("serve: --aws-services %q: want ec2, rds or ec2,rds", o.services)
		}
	}
	for _, r := range o.regions {
		if !awsinventory.ValidRegion(r) {
			return usagef("serve: --aws-region %q is not a region name (like us-east-1)", r)
		}
	}
	if o.on() && o.endpoint != "" {
		u, err := url.Parse(o.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("serve: --aws-endpoint %q is not an http:// or https:// URL", o.endpoint)
		}
	}
	return nil
}

// source builds the AWS source, with credentials and the default region
// from the SDK's default chain.
// timeout bounds each inventory (serve's --command-timeout).
func (o *awsOptions) source(ctx context.Context, timeout time.Duration) (fleet.Source, error) {
	return awsinventory.New(ctx, awsinventory.Config{
		Regions:     o.regions,
		Services:    strings.Split(o.services, ","),
		Endpoint:    o.endpoint,
		ListTimeout: timeout,
	})
}
