// Package redact hides the secret parts of URLs before they are printed or
// logged: the password of a URL with credentials (a store URL), and
// everything after the host of a webhook or Slack URL, whose path is the
// credential (https://hooks.slack.com/services/T…/B…/X…).
package redact

import (
	"errors"
	"net/url"
	"strings"
)

// Masked replaces a URL's password.
const Masked = "xxxxx"

// URL hides the password of a URL with credentials
// (postgres://u:secret@db/x becomes postgres://u:xxxxx@db/x); anything else
// is returned unchanged.
func URL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	if at := strings.LastIndex(host, "@"); at >= 0 {
		if user, _, hasPw := strings.Cut(host[:at], ":"); hasPw {
			return scheme + "://" + user + ":" + Masked + "@" + rest[at+1:]
		}
	}
	return s
}

// Webhook keeps a webhook URL's scheme and host (with port) and hides the
// rest: https://hooks.slack.com/services/T/B/X becomes
// https://hooks.slack.com/…. Credentials before the host are dropped too.
// A URL with nothing after the host is returned as it is.
func Webhook(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return "…"
	}
	host, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, tail = rest[:i], rest[i:]
	}
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host, tail = host[at+1:], "…"
	}
	if tail == "" || tail == "/" {
		return scheme + "://" + host + tail
	}
	return scheme + "://" + host + "/…"
}

// Target hides the secret part of a notification target: a mailto:
// address is kept, a webhook or slack+https:// URL keeps its host only.
func Target(t string) string {
	if strings.HasPrefix(t, "mailto:") {
		return t
	}
	return Webhook(t)
}

// Err returns err with the URL of a failed HTTP request (which Go's HTTP
// client puts in its errors: Post "https://…": dial tcp …) passed through
// Webhook.
func Err(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: Webhook(ue.URL), Err: ue.Err}
	}
	return err
}
