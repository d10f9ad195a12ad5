package apitype

import "time"

// Token describes a named API token (never its secret).
type Token struct {
	Name string `json:"name"`
	// Role is viewer, operator or admin.
	Role string `json:"role"`
	// Jobs, if set, confines the token to jobs whose names start with it.
	Jobs      string    `json:"jobs,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// CreatedBy is the name of the token that created this one.
	CreatedBy string     `json:"created_by,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Expired reports whether ExpiresAt has passed; the token is refused.
	Expired bool `json:"expired,omitempty"`
}

// TokenList is the body of GET /api/v1/tokens, ordered by name. The
// daemon's own token (admin) is not listed: it lives in the data directory.
type TokenList struct {
	Items []Token `json:"items"`
}

// TokenCreateRequest is the body of POST /api/v1/tokens.
type TokenCreateRequest struct {
	Name string `json:"name"`
	Role string `json:"role"`
	Jobs string `json:"jobs,omitempty"`
	// ExpiresInSeconds, if positive, ends the token that long after the
	// daemon creates it.
	ExpiresInSeconds int64 `json:"expires_in_seconds,omitempty"`
}

// TokenCreated answers POST /api/v1/tokens: the token and its secret, which
// the daemon does not keep and shows only this once.
type TokenCreated struct {
	Token  Token  `json:"token"`
	Secret string `json:"secret"`
}

// Whoami is the body of GET /api/v1/whoami: the token a request carries.
type Whoami struct {
	Name        string   `json:"name"`
	Role        string   `json:"role"`
	Jobs        string   `json:"jobs,omitempty"`
	Permissions []string `json:"permissions"`
}
