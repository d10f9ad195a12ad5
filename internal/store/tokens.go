package store

import (
	"context"
	"time"
)

// Token is a named API token. Only a hash of its secret is kept: the secret
// is shown once, when the token is created.
type Token struct {
	// Name identifies the token in lists, revocations and the event log.
	Name string
	// Hash is the hex SHA-256 of the secret (see apitoken.Hash).
	Hash string
	// Role is "viewer", "operator" or "admin" (see package access).
	Role string
	// JobPrefix, if set, confines the token to jobs whose names start
	// with it.
	JobPrefix string
	// CreatedAt is when the token was made, CreatedBy by whom.
	CreatedAt time.Time
	CreatedBy string
	// ExpiresAt, if not zero, is when the token stops working.
	ExpiresAt time.Time
}

// TokenDeleteParams revokes a token.
type TokenDeleteParams struct {
	Name string
	// Events are appended in the same transaction.
	Events []Event
}

// TokenCreateParams stores a new token.
type TokenCreateParams struct {
	Token Token
	// Events are appended in the same transaction.
	Events []Event
}

// TokenStore keeps the named API tokens, shared by every node of a store.
type TokenStore interface {
	// TokenCreate stores a token; ErrDuplicate if the name or the hash
	// is taken.
	TokenCreate(ctx context.Context, p TokenCreateParams) error
	// TokenByHash returns the token whose secret hashes to hash;
	// ErrNotFound.
	TokenByHash(ctx context.Context, hash string) (Token, error)
	// TokenList returns every token, ordered by name.
	TokenList(ctx context.Context) ([]Token, error)
	// TokenDelete removes a token, which stops working at once;
	// ErrNotFound.
	TokenDelete(ctx context.Context, p TokenDeleteParams) error
}
