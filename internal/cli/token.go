package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/jobname"
)

func init() {
	register("token", "manage the daemon's named API tokens (needs an admin token): token create NAME --role viewer|operator|admin [--jobs PREFIX] [--expires DUR] | token list | token revoke NAME", escaped(runToken))
}

// runToken manages named tokens through the API, like every client
// command: the daemon (perhaps one of several sharing PostgreSQL) keeps
// them in its store, and only an admin token may manage them.
func runToken(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		fs := newFlagSet("token")
		addOutputFlags(fs)
		addTokenCreateFlags(fs)
		if _, err := parseFlags(fs, args); err != nil {
			return err // the help text
		}
		return usagef("token: want create, list or revoke")
	}
	sub, args := args[0], args[1:]
	fs := newFlagSet("token " + sub)
	cf := addOutputFlags(fs)
	var role, jobs, expires *string
	if sub == "create" {
		role, jobs, expires = addTokenCreateFlags(fs)
	}
	pos, jsonOut, err := cf.parse(args)
	if err != nil {
		return err
	}
	switch sub {
	case "create":
		if len(pos) != 1 {
			return usagef("token create: usage: almanac token create NAME --role viewer|operator|admin [--jobs PREFIX] [--expires DUR]")
		}
		req, err := tokenRequest(pos[0], *role, *jobs, *expires)
		if err != nil {
			return err
		}
		c, err := cf.client()
		if err != nil {
			return err
		}
		out, err := c.TokenCreate(ctx, req)
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, out)
		}
		// The secret alone on stdout, so TOKEN=$(almanac token create ...)
		// works; the rest on stderr.
		fmt.Fprintln(e.stdout, out.Secret)
		fmt.Fprintf(e.stderr, "token %s created with role %s%s; the daemon keeps only its hash, so store it now\n",
			out.Token.Name, out.Token.Role, tokenScope(out.Token))
		return nil
	case "list":
		if len(pos) != 0 {
			return usagef("token list: unexpected argument %q", pos[0])
		}
		c, err := cf.client()
		if err != nil {
			return err
		}
		l, err := c.TokenList(ctx)
		if err != nil {
			return apiErr(err)
		}
		if jsonOut {
			return writeJSONOut(e.stdout, l)
		}
		t := newTable(e.stdout, "NAME", "ROLE", "JOBS", "CREATED", "BY", "EXPIRES")
		for _, tok := range l.Items {
			jobs, exp := tok.Jobs+"*", "never"
			if tok.Jobs == "" {
				jobs = "all"
			}
			if tok.ExpiresAt != nil {
				exp = fmtTime(tok.ExpiresAt)
				if tok.Expired {
					exp += " (expired)"
				}
			}
			t.row(tok.Name, tok.Role, jobs, fmtTime(&tok.CreatedAt), tok.CreatedBy, exp)
		}
		return t.flush()
	case "revoke":
		if len(pos) != 1 {
			return usagef("token revoke: usage: almanac token revoke NAME")
		}
		if err := apitoken.CheckName(pos[0]); err != nil {
			return usagef("token revoke: %v", err)
		}
		c, err := cf.client()
		if err != nil {
			return err
		}
		if err := c.TokenRevoke(ctx, pos[0]); err != nil {
			return apiErr(err)
		}
		fmt.Fprintf(e.stdout, "token %s revoked\n", pos[0])
		return nil
	}
	return usagef("token: unknown subcommand %q (want create, list or revoke)", sub)
}

// addTokenCreateFlags declares token create's own flags.
func addTokenCreateFlags(fs *flag.FlagSet) (role, jobs, expires *string) {
	role = fs.String("role", "", "create: the token's role, viewer, operator or admin (required)")
	jobs = fs.String("jobs", "", "create: confine the token to jobs whose names start with this prefix")
	expires = fs.String("expires", "", "create: the token stops working this long after it is created (e.g. 12h, 90d); default never")
	return role, jobs, expires
}

// tokenRequest checks token create's arguments before asking the daemon.
func tokenRequest(name, role, jobs, expires string) (apitype.TokenCreateRequest, error) {
	if err := apitoken.CheckName(name); err != nil {
		return apitype.TokenCreateRequest{}, usagef("token create: %v", err)
	}
	if role == "" {
		return apitype.TokenCreateRequest{}, usagef("token create: --role is required (viewer, operator or admin)")
	}
	if _, err := access.ParseRole(role); err != nil {
		return apitype.TokenCreateRequest{}, usagef("token create: --role: %v", err)
	}
	if jobs != "" && !jobname.ValidPrefix(jobs) {
		return apitype.TokenCreateRequest{}, usagef("token create: --jobs %q cannot begin a job name (%s)", jobs, jobname.Rule)
	}
	req := apitype.TokenCreateRequest{Name: name, Role: role, Jobs: jobs}
	if expires != "" {
		d, err := parseTTL(expires)
		if err != nil || d < time.Second {
			return req, usagef("token create: --expires %q: want a positive duration such as 12h or 90d", expires)
		}
		req.ExpiresInSeconds = int64(d / time.Second)
	}
	return req, nil
}

func tokenScope(t apitype.Token) string {
	s := ""
	if t.Jobs != "" {
		s += " for jobs " + t.Jobs + "*"
	}
	if t.ExpiresAt != nil {
		s += ", expiring " + fmtTime(t.ExpiresAt)
	}
	return s
}
