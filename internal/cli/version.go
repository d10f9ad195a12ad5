package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/almanac-sh/almanac/internal/buildinfo"
)

func init() { register("version", "print the version, VCS revision and Go version", runVersion) }

// build is the running binary's description: Version (set at link time)
// completed by what the toolchain recorded.
func build() buildinfo.Info { return buildinfo.Read(Version, Revision) }

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("version")
	asJSON := fs.Bool("json", false, "print a JSON object: version, revision, time, modified, go_version")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version: unexpected argument %q", pos[0])
	}
	in := build()
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(in)
	}
	fmt.Fprintf(e.stdout, "almanac %s\n", in.Version)
	if in.Revision != "" {
		mod := ""
		if in.Modified {
			mod = " (modified)"
		}
		fmt.Fprintf(e.stdout, "revision: %s%s\n", in.Revision, mod)
		if !in.Time.IsZero() {
			fmt.Fprintf(e.stdout, "commit time: %s\n", in.Time.Format("2006-01-02T15:04:05Z"))
		}
	}
	fmt.Fprintf(e.stdout, "go: %s\n", in.GoVersion)
	return nil
}
