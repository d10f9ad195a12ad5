package daemon

import (
	"context"
	"time"

	"github.com/almanac-sh/almanac/internal/memlimit"
)

// startupSettle is how long after it starts serving the daemon lets go of
// the pages of its executable that start-up touched: long enough for the
// first load of the jobs, the manifests and agent mode's first apply.
const startupSettle = 20 * time.Second

// releaseStartupPages waits startupSettle on the daemon's clock, then
// drops the executable's pages that package initialisation and start-up
// ran through once (memlimit.ReleaseImage): about 25 MB of a 100 MB
// binary, which would otherwise count in the daemon's RSS for as long as
// it runs. What the daemon goes on using faults back in from the page
// cache.
func (d *Daemon) releaseStartupPages(ctx context.Context) {
	t := d.clk.NewTimer(startupSettle)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C():
	}
	n, err := memlimit.ReleaseImage()
	if err != nil {
		d.log.Warn("release start-up pages", "err", err)
		return
	}
	d.log.Debug("released start-up pages of the executable", "bytes", n)
}
