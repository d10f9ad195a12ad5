// Package apitype holds the JSON wire types of almanac's HTTP API (/api/v1):
// jobs (spec and status), runs, events, list pages and errors. The daemon's
// handlers (package httpapi), the typed client (package apiclient), the CLI and
// the web UI all speak these types, so the wire format is defined once.
//
// The package imports only the standard library and holds no behaviour beyond
// JSON encoding of a few value types ([Command], [Duration]).
package apitype
