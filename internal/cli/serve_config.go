package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/almanac-sh/almanac/internal/flagfile"
)

// configFlags are serve's --config and --print-config: the flags that
// have no key in the configuration file.
type configFlags struct {
	path  *string
	print *bool
}

// configOnlyFlags are the serve flags without a configuration-file key.
var configOnlyFlags = map[string]bool{"config": true, "print-config": true}

// addConfigFlags declares --config and --print-config on serve's flag set
// and makes its repeatable flags remember their values for --print-config.
// Call it after every other serve flag is declared.
func addConfigFlags(fs *flag.FlagSet) *configFlags {
	c := &configFlags{
		path: fs.String("config", "", "TOML file of serve's settings: every flag has a key, --some-flag as some_flag "+
			"(arrays for repeatable flags); flags given on the command line override it"),
		print: fs.Bool("print-config", false, "print the effective settings (secrets masked) in the --config format and exit"),
	}
	flagfile.Record(fs)
	return c
}

// apply sets the flags the --config file names, except those given on the
// command line. A mistake in the file, or a file another user could have
// written, is a usage error at its line and column; a file holding
// secrets that others may read is accepted, with a warning passed to warn.
func (c *configFlags) apply(fs *flag.FlagSet, warn func(string)) error {
	if *c.path == "" {
		return nil
	}
	f, err := flagfile.Read(*c.path)
	if err != nil {
		return usagef("serve: --config: %w", unwrapPath(err))
	}
	if keys := f.Exposed(); len(keys) > 0 {
		warn(fmt.Sprintf("--config %s holds secrets (%s) and others may read it (mode %04o); chmod o-r %s",
			*c.path, strings.Join(keys, ", "), f.Mode(), *c.path))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := f.Apply(fs, set, configOnlyFlags); err != nil {
		return usagef("serve: --config: %w", err)
	}
	return nil
}

// printEffective writes the effective settings for --print-config.
func (c *configFlags) printEffective(w io.Writer, fs *flag.FlagSet) error {
	return flagfile.Print(w, fs, configOnlyFlags)
}
