package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/store"
)

// statusOf maps an error code to its HTTP status.
var statusOf = map[string]int{
	apitype.CodeBadRequest:      http.StatusBadRequest,
	apitype.CodeUnauthorized:    http.StatusUnauthorized,
	apitype.CodeForbidden:       http.StatusForbidden,
	apitype.CodeNotFound:        http.StatusNotFound,
	apitype.CodeMethod:          http.StatusMethodNotAllowed,
	apitype.CodeConflict:        http.StatusConflict,
	apitype.CodeTooLarge:        http.StatusRequestEntityTooLarge,
	apitype.CodeUnsupportedType: http.StatusUnsupportedMediaType,
	apitype.CodeInvalid:         http.StatusUnprocessableEntity,
	apitype.CodeInternal:        http.StatusInternalServerError,
	apitype.CodeUnavailable:     http.StatusServiceUnavailable,
}

// apiError turns any handler error into the error the client sees. Store
// errors keep their message (it names the job or run); anything unexpected
// becomes a generic 500 so internals do not leak.
func apiError(err error) *apitype.Error {
	var ae *apitype.Error
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &mbe):
		return &apitype.Error{Code: apitype.CodeTooLarge, Message: "request body is larger than 1 MiB"}
	case errors.Is(err, store.ErrNotFound):
		return &apitype.Error{Code: apitype.CodeNotFound, Message: err.Error()}
	case errors.Is(err, store.ErrDuplicate), errors.Is(err, store.ErrConflict):
		return &apitype.Error{Code: apitype.CodeConflict, Message: err.Error()}
	case errors.Is(err, store.ErrStaleTerm):
		return &apitype.Error{Code: apitype.CodeUnavailable, Message: "this node lost leadership; retry"}
	}
	return &apitype.Error{Code: apitype.CodeInternal, Message: "internal error (see the daemon's log)"}
}

func writeError(w http.ResponseWriter, e *apitype.Error) {
	code, ok := statusOf[e.Code]
	if !ok {
		code = http.StatusInternalServerError
	}
	writeJSON(w, code, apitype.ErrorBody{Error: e})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"error":{"code":"internal","message":"cannot encode response"}}`)
		code = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// badRequest is a 400 naming a field or parameter.
func badRequest(field, msg string) *apitype.Error {
	return &apitype.Error{Code: apitype.CodeBadRequest, Field: field, Message: msg}
}

// invalid is a 422 naming a field.
func invalid(field, msg string) *apitype.Error {
	return &apitype.Error{Code: apitype.CodeInvalid, Field: field, Message: msg}
}
