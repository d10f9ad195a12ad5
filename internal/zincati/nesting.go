package zincati

import (
	"errors"

	"github.com/almanac-sh/almanac/internal/tomldepth"
)

// checkNesting refuses a fragment nested deeper than tomldepth allows
// (dotted keys, table headers, arrays and inline tables), before the TOML
// decoder sees it: deep nesting costs the decoder memory quadratic in the
// depth, or its stack.
func checkNesting(text string) (position, error) {
	var e *tomldepth.Error
	if err := tomldepth.Check(text); errors.As(err, &e) {
		return position{line: e.Line, col: e.Col}, errors.New(e.Message())
	}
	return position{}, nil
}
