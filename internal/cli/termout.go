package cli

import (
	"context"
	"errors"

	"github.com/almanac-sh/almanac/internal/termtext"
)

// escaped wraps a client command so that what it prints, which includes
// strings other people set (event details, FleetLock ids, notify targets,
// messages from the daemon), cannot drive the terminal: control characters
// are shown as escapes. JSON output passes unchanged (see writeJSONOut),
// as its encoding already escapes them; the final error line is escaped by
// report.
func escaped(run func(ctx context.Context, e *env, args []string) error) func(ctx context.Context, e *env, args []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		out, errOut := termtext.NewWriter(e.stdout), termtext.NewWriter(e.stderr)
		te := *e
		te.stdout, te.stderr = out, errOut
		err := run(ctx, &te, args)
		return errors.Join(err, out.Flush(), errOut.Flush())
	}
}
