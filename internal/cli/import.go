package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/almanac-sh/almanac/internal/importer"
	"github.com/almanac-sh/almanac/internal/inputfile"
)

func init() {
	register("import", "print a manifest of jobs converted from a crontab or a Kubernetes CronJob: import crontab|cronjob FILE|-", runImport)
}

// runImport converts a crontab or CronJob YAML to a manifest on stdout;
// what could not be converted is reported on stderr as FILE:LINE: warnings.
func runImport(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("import")
	user := fs.String("user", "", "crontab: whose crontab it is (for the comments; `crontab -l -u USER`)")
	system := fs.Bool("system", false, "crontab: the system format of /etc/crontab and /etc/cron.d, with a user column")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || (pos[0] != "crontab" && pos[0] != "cronjob") {
		return usagef("import: usage: almanac import crontab [--user U] [--system] FILE|-   or   almanac import cronjob FILE.yaml|-")
	}
	kind, file := pos[0], pos[1]
	if kind == "cronjob" && (*user != "" || *system) {
		return usagef("import cronjob: --user and --system apply to crontabs only")
	}
	src, name, err := readInput(e, file)
	if err != nil {
		return usagef("import %s: %v", kind, unwrapPath(err))
	}
	var res importer.Result
	if kind == "crontab" {
		res, err = importer.Crontab(name, src, importer.CrontabOptions{User: *user, System: *system})
	} else {
		res, err = importer.CronJob(name, src)
	}
	if err != nil {
		return usagef("import %s: %v", kind, err)
	}
	if _, err := io.WriteString(e.stdout, res.Manifest); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(e.stderr, "almanac: import: warning: "+w)
	}
	if res.Jobs == 0 {
		return fmt.Errorf("import %s: %s has no entry that could be imported", kind, name)
	}
	return nil
}

// readInput reads a user file through inputfile, or standard input for
// "-" (bounded the same way), and returns the name to report it by.
func readInput(e *env, file string) ([]byte, string, error) {
	if file != "-" {
		b, err := inputfile.Read(file)
		return b, file, err
	}
	if e.stdin == nil {
		return nil, "", fmt.Errorf("no standard input")
	}
	limit := inputfile.MaxSize()
	b, err := io.ReadAll(io.LimitReader(e.stdin, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("read standard input: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, "", fmt.Errorf("standard input: %w: over the %d-byte limit", inputfile.ErrTooLarge, limit)
	}
	return b, "<stdin>", nil
}
