package daemon

import "github.com/almanac-sh/almanac/internal/store"

// What the package's external tests (which start daemons through
// daemontest) may see of its inside.

// DemoFailingNode is the simulated node whose runs fail now and then.
const DemoFailingNode = demoFailingNode

// StoreOf is d's store, for tests that look beneath the API.
func StoreOf(d *Daemon) store.Store { return d.backend }

// APIRoutes lists the routes d's API serves, its own additions included.
func APIRoutes(d *Daemon) []string { return d.api.Routes() }
