// Package access decides who may do what through almanac's HTTP API and
// web UI: the roles a token holds, the permissions each role grants, and the
// principal a request acts as once its token is checked.
//
// A role is a fixed set of permissions (see [Role.Allows]); there are three,
// each including the one before it:
//
//   - viewer reads jobs, runs, events, windows, nodes and resources, but not
//     the output of runs, which may hold secrets;
//   - operator also reads run output and acts on what exists: trigger, kill,
//     suspend, resume, pause, resume and abort waves, take an inventory;
//   - admin also writes and deletes job specs (commands, run_as) and manages
//     tokens.
//
// A token may also be confined to the jobs whose names start with a prefix
// ([Principal.JobPrefix]); everything about other jobs is then hidden from
// it as if absent, and routes that reach every job at once are refused.
package access

import (
	"context"
	"fmt"
	"strings"
)

// Role is a token's role.
type Role string

// The roles, least to most powerful.
const (
	Viewer   Role = "viewer"
	Operator Role = "operator"
	Admin    Role = "admin"
)

// Roles lists the roles, least to most powerful.
var Roles = []Role{Viewer, Operator, Admin}

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if s == string(r) {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown role %q (want viewer, operator or admin)", s)
}

// Permission is one thing a role may do.
type Permission string

// The permissions.
const (
	// Read: jobs and their schedules, runs without output, events,
	// windows, nodes, resources, reboot groups, waves, apply summaries.
	Read Permission = "read"
	// ReadOutput: what runs printed (and apply reports, which carry it).
	ReadOutput Permission = "read-output"
	// Operate: trigger, kill, suspend, resume, wave pause/resume/abort,
	// inventory and apply now.
	Operate Permission = "operate"
	// WriteJobs: create, replace and delete job specs.
	WriteJobs Permission = "write-jobs"
	// ManageTokens: create, list and revoke tokens.
	ManageTokens Permission = "manage-tokens"
)

// Permissions lists every permission, in the order of the role table.
var Permissions = []Permission{Read, ReadOutput, Operate, WriteJobs, ManageTokens}

// grants is the role table: what each role may do.
var grants = map[Role][]Permission{
	Viewer:   {Read},
	Operator: {Read, ReadOutput, Operate},
	Admin:    {Read, ReadOutput, Operate, WriteJobs, ManageTokens},
}

// Allows reports whether the role grants p.
func (r Role) Allows(p Permission) bool {
	for _, g := range grants[r] {
		if g == p {
			return true
		}
	}
	return false
}

// Principal is who a request acts as: a token's name, role and job prefix.
type Principal struct {
	// Name is the token's name ("admin" for the daemon's own token).
	Name string
	Role Role
	// JobPrefix, if set, confines the principal to jobs whose names start
	// with it.
	JobPrefix string
}

// Can reports whether the principal's role grants p.
func (p Principal) Can(perm Permission) bool { return p.Role.Allows(perm) }

// SeesJob reports whether the principal may see the job named name.
func (p Principal) SeesJob(name string) bool { return strings.HasPrefix(name, p.JobPrefix) }

// Confined reports whether the principal is limited to some jobs.
func (p Principal) Confined() bool { return p.JobPrefix != "" }

// Bootstrap is the principal of the daemon's own token (the token file in
// its data directory, or --token): an admin over every job.
var Bootstrap = Principal{Name: "admin", Role: Admin}

type principalKey struct{}

// With returns ctx carrying p.
func With(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the principal ctx carries. A context without one (a daemon
// without a token, serving loopback only) acts as Bootstrap.
func From(ctx context.Context) Principal {
	if p, ok := ctx.Value(principalKey{}).(Principal); ok {
		return p
	}
	return Bootstrap
}

// Lookup returns the principal ctx carries, and whether it carries one.
func Lookup(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// Denied is the error of a request its principal may not make.
type Denied struct {
	Principal  Principal
	Permission Permission
	// AllJobs: the route reaches every job, which a confined principal
	// may not.
	AllJobs bool
}

func (d *Denied) Error() string {
	if d.AllJobs {
		return fmt.Sprintf("token %s is confined to jobs %s*; this needs permission %s over every job", d.Principal.Name, d.Principal.JobPrefix, d.Permission)
	}
	return fmt.Sprintf("token %s (role %s) lacks permission %s", d.Principal.Name, d.Principal.Role, d.Permission)
}
