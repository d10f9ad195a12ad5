// Package apply runs a catalog the way `puppet apply` does: containers expand
// to admissible/completed sentinels, dependency cycles abort the run before
// anything changes, resources are visited in dependency order with unrelated
// ones kept in manifest (or hashed, or random) order, schedules gate
// resources, failures skip dependents, and refresh events are batched per
// target. Providers that change the system implement [Provider]; schedules
// implement [Gate].
package apply

import (
	"context"
	"fmt"
	"time"
)

// Resource is one entry of the catalog to apply.
type Resource struct {
	Type   string         // lower case, e.g. "exec"; "Class", "Stage" or a defined type for containers
	Title  string         // e.g. "/bin/true"
	Params map[string]any // attribute values as the compiler produced them
	Pos    string         // where it was declared, "file:line:col" ("" if unknown)
	// Container is the ref of the container that holds this resource
	// ("Class[Main]"), or "" for none. Containment can also be given by
	// [Contain] edges.
	Container string
	// IsContainer marks a defined-type instance. Resources of type Class and
	// Stage, and anything named as a Container, are containers anyway.
	IsContainer bool

	ref string // the reference as the compiler formats it, if it came from one
}

// Ref returns the resource reference, e.g. "Exec[a]": the type with each
// "::"-separated segment capitalised, and the title.
func (r *Resource) Ref() string {
	if r.ref != "" {
		return r.ref
	}
	return Ref(r.Type, r.Title)
}

// Ref formats a resource reference from a type and title.
func Ref(typ, title string) string {
	return capitalizeType(typ) + "[" + title + "]"
}

func capitalizeType(t string) string {
	b := []byte(t)
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == ':'
	}
	return string(b)
}

// EdgeKind is what an edge means.
type EdgeKind uint8

// The kinds of edges a catalog carries.
const (
	Before  EdgeKind = iota // ordering only: before/require, ->
	Notify                  // ordering plus refresh events: notify/subscribe, ~>
	Contain                 // From contains To
	Auto                    // an automatic ordering relationship (autorequire)
)

func (k EdgeKind) String() string {
	switch k {
	case Before:
		return "before"
	case Notify:
		return "notify"
	case Contain:
		return "contain"
	case Auto:
		return "auto"
	}
	return fmt.Sprintf("EdgeKind(%d)", k)
}

// Edge is a relationship between two resources, given by ref: To is applied
// after From.
type Edge struct {
	From, To string
	Kind     EdgeKind
	Pos      string // where the relationship was declared
}

// Catalog is what a run applies: resources in manifest evaluation order and
// the relationships between them, in the order they were declared.
type Catalog struct {
	Resources []*Resource
	Edges     []Edge
}

// Level is a log line's severity.
type Level uint8

// Log levels, in Puppet's words.
const (
	Debug Level = iota
	Info
	Notice
	Warning
	Err
)

func (l Level) String() string {
	switch l {
	case Debug:
		return "Debug"
	case Info:
		return "Info"
	case Notice:
		return "Notice"
	case Warning:
		return "Warning"
	}
	return "Error"
}

// Logger receives the run's log lines. source is a resource ref, optionally
// followed by "/property" ("Exec[a]/returns"), or "" for a line with no
// source; Puppet prints such a line as "Level: source: msg".
type Logger interface {
	Log(level Level, source, msg string)
}

// LoggerFunc adapts a function to [Logger].
type LoggerFunc func(level Level, source, msg string)

// Log calls f.
func (f LoggerFunc) Log(level Level, source, msg string) { f(level, source, msg) }

// Provider manages one resource type.
type Provider interface {
	// Changes inspects the system and returns the properties of r that are
	// out of sync, in the order they must be synced; none means r is in sync.
	// An error means the current state could not be read: r fails.
	Changes(ctx context.Context, r *Resource, log Logger) ([]Change, error)
}

// Refresher is implemented by providers whose resources react to refresh
// events (exec re-runs, service restarts). Events sent to a resource whose
// provider is not a Refresher are not queued, as in Puppet.
type Refresher interface {
	Refresh(ctx context.Context, r *Resource, log Logger) error
}

// Change is one out-of-sync property and how to fix it.
type Change struct {
	Property string // e.g. "returns", "ensure", "content"
	// Is and Should are the current and desired values formatted as Puppet
	// shows them, quotes included: 'notrun' and ['0'].
	Is, Should string
	// Sync makes the change and returns the message that reports it
	// ("executed successfully", "created"). Output worth showing is logged
	// through log.
	Sync func(ctx context.Context, log Logger) (string, error)
	// InvalidatesRefreshes drops refresh events already queued for the
	// resource, as a service that was just started needs no restart.
	InvalidatesRefreshes bool
}

// Gate decides whether a scheduled resource may be applied now, given when
// it was last checked (the zero time if never).
type Gate interface {
	Match(lastChecked, now time.Time) bool
}

// gateEvaluator is a Gate that can also fail while matching; the run then
// aborts, as Puppet does.
type gateEvaluator interface {
	Eval(lastChecked, now time.Time) (bool, error)
}
