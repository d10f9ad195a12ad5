package daemon

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// UsageError marks a configuration mistake the operator must fix in the
// command line (a bad flag value, a missing directory): the CLI prints it
// as a usage error and exits 2.
type UsageError struct{ Err error }

func (u *UsageError) Error() string { return u.Err.Error() }
func (u *UsageError) Unwrap() error { return u.Err }

// usagef returns a *UsageError with a formatted message.
func usagef(format string, a ...any) error {
	return &UsageError{fmt.Errorf(format, a...)}
}

// unwrapPath shortens an *os.PathError to "path: reason", dropping the
// operation, which says nothing to the reader.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// listFlag is a repeatable string flag.
type listFlag []string

func (s *listFlag) String() string     { return strings.Join(*s, ",") }
func (s *listFlag) Set(v string) error { *s = append(*s, v); return nil }
