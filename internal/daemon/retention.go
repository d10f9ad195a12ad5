package daemon

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/almanac-sh/almanac/internal/inputfile"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/retention"
)

// retentionFlags are what bounds the daemon's disk use besides each job's
// history limits: the event log's retention and each run's captured
// output (docs/daemon.md, "Disk use").
type retentionFlags struct {
	events    retention.Events
	maxOutput sizeFlag
}

// maxOutputLimit bounds --max-output: a run's output is held in memory
// while it runs.
const maxOutputLimit = 64 << 20

func addRetentionFlags(fs *flag.FlagSet, r *retentionFlags) {
	r.events = retention.Default
	r.maxOutput = sizeFlag(job.DefaultMaxOutput)
	fs.Var(&r.events, "keep-events", `how much of the event log to keep: an age (30d, 720h), a count (100000), both ("30d,100000"), or "all"`)
	fs.Var(&r.maxOutput, "max-output", "how much of each run's output to keep (the tail), such as 1MiB or 65536; with the jobs' history limits it bounds the stored output per job")
}

func (r *retentionFlags) check() error {
	if r.maxOutput < 1024 || r.maxOutput > maxOutputLimit {
		return usagef("serve: --max-output %s: want 1KiB to 64MiB", r.maxOutput.String())
	}
	return nil
}

// sizeFlag is a byte count given as 65536, 64KiB or 1MiB.
type sizeFlag int64

func (s *sizeFlag) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *sizeFlag) Set(v string) error {
	n, err := inputfile.ParseSize(v)
	if err != nil {
		return fmt.Errorf("%q: %w", v, err)
	}
	*s = sizeFlag(n)
	return nil
}
