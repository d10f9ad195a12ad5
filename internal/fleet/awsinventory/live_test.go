package awsinventory

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
)

// TestLiveAccount lists a real AWS account when ALMANAC_AWS_LIVE=1 and the
// SDK's default chain finds credentials; it only reads (Describe* calls).
// ALMANAC_AWS_REGIONS (comma-separated) narrows the regions; default every
// enabled region. It is a choice, like ALMANAC_SLOW, never run in CI.
func TestLiveAccount(t *testing.T) {
	if os.Getenv("ALMANAC_AWS_LIVE") != "1" {
		t.Skip("set ALMANAC_AWS_LIVE=1 (with AWS credentials) to list a real account")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatalf("AWS configuration: %v", err)
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		t.Skipf("ALMANAC_AWS_LIVE=1 but no AWS credentials: %v", err)
	}
	var regions []string
	if r := os.Getenv("ALMANAC_AWS_REGIONS"); r != "" {
		regions = strings.Split(r, ",")
	}
	src, err := New(ctx, Config{Regions: regions, AWS: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := src.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.ID == "" || !r.State.Valid() {
			t.Errorf("bad resource %+v", r)
		}
		t.Logf("%s %s %s hibernation=%t %d tags", r.ID, r.Name, r.State, r.SupportsHibernation, len(r.Tags))
	}
	t.Logf("%d scheduled resources", len(rs))
}
