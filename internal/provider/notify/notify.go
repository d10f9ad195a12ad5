// Package notify is the provider for notify resources: it logs a message,
// as Puppet's notify does, every run.
package notify

import (
	"context"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/provider"
)

// Provider logs notify messages.
type Provider struct{}

// Changes always reports the message out of sync: a notify is never
// "already done".
func (Provider) Changes(_ context.Context, r *apply.Resource, _ apply.Logger) ([]apply.Change, error) {
	msg := provider.String(r.Params, "message")
	if msg == "" {
		msg = r.Title
	}
	return []apply.Change{{
		Property: "message", Is: "'absent'", Should: "'" + msg + "'",
		Sync: func(_ context.Context, log apply.Logger) (string, error) {
			log.Log(apply.Notice, "", msg)
			return "defined 'message' as '" + msg + "'", nil
		},
	}}, nil
}
