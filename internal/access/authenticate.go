package access

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// TokenFinder finds a named token by the hash of its secret
// (store.Store implements it).
type TokenFinder interface {
	TokenByHash(ctx context.Context, hash string) (store.Token, error)
}

// ErrUnauthenticated is wrapped by the errors of a token that is unknown,
// revoked or expired.
var ErrUnauthenticated = errors.New("unknown, revoked or expired token")

// ErrExpired is wrapped by the error of a token past its expiry (with
// ErrUnauthenticated).
var ErrExpired = errors.New("the token has expired")

// Authenticator tells whose token a request carries: the daemon's own
// (bootstrap) token, which is admin, or a named token of the store, which
// must not have expired. A revoked token is gone from the store, so it is
// refused at its next request, on every node.
type Authenticator struct {
	bootstrap string // hash of the daemon's own token; "" when it has none
	tokens    TokenFinder
	clock     clock.Clock
}

// NewAuthenticator returns an Authenticator for the daemon's own token
// (empty when it has none) and the named tokens of tokens.
func NewAuthenticator(bootstrap string, tokens TokenFinder, clk clock.Clock) *Authenticator {
	a := &Authenticator{tokens: tokens, clock: clk}
	if bootstrap != "" {
		a.bootstrap = apitoken.Hash(bootstrap)
	}
	if a.clock == nil {
		a.clock = clock.Real{}
	}
	return a
}

// Required reports whether requests need a token: the daemon has its own.
// Without one it serves loopback only and a request without a token acts
// as Bootstrap.
func (a *Authenticator) Required() bool { return a.bootstrap != "" }

// Authenticate returns the principal of a token's secret. The error wraps
// ErrUnauthenticated for a secret that names no live token; any other
// error is the store's.
func (a *Authenticator) Authenticate(ctx context.Context, secret string) (Principal, error) {
	if err := apitoken.Check(secret); err != nil {
		return Principal{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	return a.AuthenticateHash(ctx, apitoken.Hash(secret))
}

// AuthenticateHash is Authenticate given the secret's apitoken.Hash (the
// web UI keeps only that in its sessions).
func (a *Authenticator) AuthenticateHash(ctx context.Context, hash string) (Principal, error) {
	if a.bootstrap != "" && subtle.ConstantTimeCompare([]byte(hash), []byte(a.bootstrap)) == 1 {
		return Bootstrap, nil
	}
	if a.tokens == nil {
		return Principal{}, ErrUnauthenticated
	}
	t, err := a.tokens.TokenByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, ErrUnauthenticated
	}
	if err != nil {
		return Principal{}, fmt.Errorf("check token: %w", err)
	}
	if !t.ExpiresAt.IsZero() && !a.clock.Now().Before(t.ExpiresAt) {
		return Principal{}, fmt.Errorf("%w: %w: token %s expired at %s", ErrUnauthenticated, ErrExpired, t.Name, t.ExpiresAt.UTC().Format(time.RFC3339))
	}
	role, err := ParseRole(t.Role)
	if err != nil {
		return Principal{}, fmt.Errorf("%w: token %s: %w", ErrUnauthenticated, t.Name, err)
	}
	return Principal{Name: t.Name, Role: role, JobPrefix: t.JobPrefix}, nil
}
