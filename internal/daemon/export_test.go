package daemon

import (
	"context"

	"github.com/almanac-sh/almanac/internal/manifestdir"
	"github.com/almanac-sh/almanac/internal/store"
)

// What the package's external tests (which start daemons through
// daemontest) may see of its inside.

// DemoFailingNode is the simulated node whose runs fail now and then.
const DemoFailingNode = demoFailingNode

// StoreOf is d's store, for tests that look beneath the API.
func StoreOf(d *Daemon) store.Store { return d.backend }

// APIRoutes lists the routes d's API serves, its own additions included.
func APIRoutes(d *Daemon) []string { return d.api.Routes() }

// AcceptManifests makes s the manifests in force of d, as a reload of its
// --manifests directory does. The test must keep d's watcher from polling
// (a fake clock that it does not advance).
func AcceptManifests(ctx context.Context, d *Daemon, s *manifestdir.Snapshot) error {
	return d.manifests.accept(ctx, s)
}
