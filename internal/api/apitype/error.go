package apitype

import "fmt"

// Error codes. Each maps to one HTTP status.
const (
	CodeBadRequest      = "bad_request"        // 400: malformed JSON, bad query parameter
	CodeUnauthorized    = "unauthorized"       // 401: missing or wrong bearer token
	CodeForbidden       = "forbidden"          // 403: a permission the token lacks, cross-origin browser request, bad Host
	CodeNotFound        = "not_found"          // 404: no such job, run or route
	CodeMethod          = "method_not_allowed" // 405
	CodeConflict        = "conflict"           // 409: the request conflicts with current state
	CodeTooLarge        = "too_large"          // 413: body over the limit
	CodeUnsupportedType = "unsupported_media_type"
	CodeInvalid         = "invalid"  // 422: well-formed but invalid spec (bad cron, unknown zone)
	CodeInternal        = "internal" // 500
	CodeUnavailable     = "unavailable"
)

// Error is the error object of every failed API call:
// {"error":{"code":"invalid","message":"...","field":"spec.cron"}}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Field names the offending input, as a JSON path into the body
	// ("time_zone") or a query parameter ("?state"), when one is to blame.
	Field string `json:"field,omitempty"`
	// Permission names, on a 403, the permission the request's token
	// lacks ("operate", "write-jobs"; see docs/security.md).
	Permission string `json:"permission,omitempty"`
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	}
	return e.Message
}

// ErrorBody is the JSON envelope around Error.
type ErrorBody struct {
	Error *Error `json:"error"`
}
