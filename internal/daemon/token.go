package daemon

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/almanac-sh/almanac/internal/apitoken"
)

// warnExposedToken warns, as ssh does of a private key, when the token
// file in dir is open to other users: anyone who can read it can do all
// the API allows.
func warnExposedToken(stderr io.Writer, log *slog.Logger, dir string) {
	mode, exposed := apitoken.Exposed(dir)
	if !exposed {
		return
	}
	p := apitoken.Path(dir)
	fmt.Fprintf(stderr, "almanac: WARNING: the token file %s has mode %04o: other users may read or change it and so control this daemon; run chmod 600 %s\n", p, mode, p)
	log.Warn("the token file is open to other users", "path", p, "mode", fmt.Sprintf("%04o", mode))
}
