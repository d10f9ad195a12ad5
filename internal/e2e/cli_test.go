package e2e

import (
	"bytes"
	"context"
	"testing"

	"github.com/almanac-sh/almanac/internal/cli"
)

// The CLI's exit statuses the tests expect: success, a failed apply or
// validation, and bad usage or input (cli.Main's contract).
const (
	exitOK      = 0
	exitFailure = 1 // a failed apply or validation
	exitUsage   = 2 // bad flags, arguments or input
)

// runCLI runs almanac's command line in this process with args and returns
// its standard output, its standard error and its exit status.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}
