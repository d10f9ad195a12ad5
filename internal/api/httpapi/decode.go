package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/almanac-sh/almanac/internal/api/apitype"
)

// decodeJSON reads r's body into v: JSON only, at most MaxBodyBytes, no
// unknown fields, one value. Errors name the field where JSON can tell.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return &apitype.Error{Code: apitype.CodeUnsupportedType,
				Message: fmt.Sprintf("Content-Type %q is not application/json", ct)}
		}
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badRequest("", "request body holds more than one JSON value")
	}
	return nil
}

// jsonError turns a decoding error into a 400 naming the field.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.Is(err, io.EOF):
		return badRequest("", "request body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "request body ends in the middle of a JSON value")
	case errors.As(err, &syn):
		return badRequest("", fmt.Sprintf("invalid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: ")))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badRequest("", fmt.Sprintf("body must be a JSON object, not %s", typ.Value))
		}
		want := typ.Type.String()
		switch typ.Type.Kind().String() {
		case "int", "int64":
			want = "an integer"
		case "string":
			want = "a string"
		case "bool":
			want = "true or false"
		case "slice":
			want = "an array"
		case "map":
			want = "an object"
		}
		if typ.Type.Name() == "Command" {
			want = "a string or an array of strings"
		}
		return badRequest(typ.Field, fmt.Sprintf("must be %s, not %s", want, typ.Value))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		name, _ := strconv.Unquote(f)
		return badRequest(name, fmt.Sprintf("unknown field %s", f))
	}
	return badRequest("", msg)
}

// queryInt parses an optional non-negative integer query parameter.
func queryInt(r *http.Request, name string, def, max int64) (int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || (max > 0 && n > max) {
		if max > 0 {
			return 0, badRequest("?"+name, fmt.Sprintf("%q is not an integer between 0 and %d", s, max))
		}
		return 0, badRequest("?"+name, fmt.Sprintf("%q is not a non-negative integer", s))
	}
	return n, nil
}

// queryCount reads a count such as ?limit or ?n: def when absent, else an
// integer from 1 to max (0 asks for nothing, which no caller means).
func queryCount(r *http.Request, name string, def, max int64) (int64, error) {
	n, err := queryInt(r, name, def, max)
	if err != nil || n == 0 {
		return 0, badRequest("?"+name, fmt.Sprintf("%q is not an integer between 1 and %d", r.URL.Query().Get(name), max))
	}
	return n, nil
}

// checkQuery rejects query parameters the route does not know, so a typo
// (?stat=failed) is an error rather than a silently unfiltered list.
func checkQuery(r *http.Request, known ...string) error {
	for k := range r.URL.Query() {
		ok := false
		for _, n := range known {
			if k == n {
				ok = true
				break
			}
		}
		if !ok {
			return badRequest("?"+k, fmt.Sprintf("unknown query parameter %q (known: %s)", k, strings.Join(known, ", ")))
		}
	}
	return nil
}
