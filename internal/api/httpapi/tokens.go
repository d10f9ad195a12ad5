package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/jobname"
	"github.com/almanac-sh/almanac/internal/store"
)

// TokenStore is the part of store.Store that keeps named tokens.
type TokenStore interface {
	TokenCreate(ctx context.Context, p store.TokenCreateParams) error
	TokenByHash(ctx context.Context, hash string) (store.Token, error)
	TokenList(ctx context.Context) ([]store.Token, error)
	TokenDelete(ctx context.Context, p store.TokenDeleteParams) error
}

// maxTokenLifetime bounds --expires: ten years.
const maxTokenLifetime = 10 * 365 * 24 * time.Hour

func (s *Server) tokenRoutes() {
	s.handleFunc("GET /api/v1/tokens", s.listTokens)
	s.handleFunc("POST /api/v1/tokens", s.createToken)
	s.handleFunc("DELETE /api/v1/tokens/{name}", s.revokeToken)
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r); err != nil {
		return err
	}
	p := access.From(r.Context())
	out := apitype.Whoami{Name: p.Name, Role: string(p.Role), Jobs: p.JobPrefix, Permissions: []string{}}
	for _, perm := range access.Permissions {
		if p.Can(perm) {
			out.Permissions = append(out.Permissions, string(perm))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) tokenFromStore(t store.Token) apitype.Token {
	out := apitype.Token{Name: t.Name, Role: t.Role, Jobs: t.JobPrefix, CreatedAt: t.CreatedAt, CreatedBy: t.CreatedBy}
	if !t.ExpiresAt.IsZero() {
		exp := t.ExpiresAt
		out.ExpiresAt = &exp
		out.Expired = !s.cfg.Clock.Now().Before(exp)
	}
	return out
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r); err != nil {
		return err
	}
	ts, err := s.cfg.Tokens.TokenList(r.Context())
	if err != nil {
		return fmt.Errorf("list tokens: %w", err)
	}
	out := apitype.TokenList{Items: make([]apitype.Token, 0, len(ts))}
	for _, t := range ts {
		out.Items = append(out.Items, s.tokenFromStore(t))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r); err != nil {
		return err
	}
	var req apitype.TokenCreateRequest
	if err := decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := apitoken.CheckName(req.Name); err != nil {
		return invalid("name", err.Error())
	}
	if req.Name == access.Bootstrap.Name {
		return invalid("name", `"admin" names the daemon's own token (the token file in its data directory); pick another name`)
	}
	role, err := access.ParseRole(req.Role)
	if err != nil {
		return invalid("role", err.Error())
	}
	if req.Jobs != "" && !jobname.ValidPrefix(req.Jobs) {
		return invalid("jobs", fmt.Sprintf("%.80q cannot begin a job name", req.Jobs))
	}
	now := s.cfg.Clock.Now()
	t := store.Token{Name: req.Name, Role: string(role), JobPrefix: req.Jobs, CreatedAt: now,
		CreatedBy: access.From(r.Context()).Name}
	switch {
	case req.ExpiresInSeconds < 0:
		return invalid("expires_in_seconds", "must not be negative")
	case req.ExpiresInSeconds > int64(maxTokenLifetime/time.Second):
		return invalid("expires_in_seconds", fmt.Sprintf("%d is more than ten years", req.ExpiresInSeconds))
	case req.ExpiresInSeconds > 0:
		t.ExpiresAt = now.Add(time.Duration(req.ExpiresInSeconds) * time.Second)
	}
	secret := apitoken.Generate()
	t.Hash = apitoken.Hash(secret)
	msg := fmt.Sprintf("token %s created with role %s", t.Name, t.Role)
	if t.JobPrefix != "" {
		msg += fmt.Sprintf(" for jobs %s*", t.JobPrefix)
	}
	if !t.ExpiresAt.IsZero() {
		msg += ", expiring " + t.ExpiresAt.UTC().Format(time.RFC3339)
	}
	err = s.cfg.Tokens.TokenCreate(r.Context(), store.TokenCreateParams{Token: t,
		Events: []store.Event{{Kind: store.EventTokenCreated, Resource: "token/" + t.Name, Message: msg}}})
	if errors.Is(err, store.ErrDuplicate) {
		return &apitype.Error{Code: apitype.CodeConflict, Field: "name", Message: fmt.Sprintf("a token named %s exists; revoke it first", t.Name)}
	}
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, apitype.TokenCreated{Token: s.tokenFromStore(t), Secret: secret})
	return nil
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) error {
	if err := checkQuery(r); err != nil {
		return err
	}
	name := r.PathValue("name")
	if err := apitoken.CheckName(name); err != nil {
		return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("token %.80q not found", name)}
	}
	err := s.cfg.Tokens.TokenDelete(r.Context(), store.TokenDeleteParams{Name: name,
		Events: []store.Event{{Kind: store.EventTokenRevoked, Resource: "token/" + name, Message: "token " + name + " revoked"}}})
	if errors.Is(err, store.ErrNotFound) {
		return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("token %s not found", name)}
	}
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
