package access_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/access"
	"github.com/almanac-sh/almanac/internal/apitoken"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/store"
)

// TestRoleTable: each role grants exactly its row of docs/security.md's
// table, each including the one before.
func TestRoleTable(t *testing.T) {
	want := map[access.Role]string{
		access.Viewer:   "[read]",
		access.Operator: "[read read-output operate]",
		access.Admin:    "[read read-output operate write-jobs manage-tokens]",
	}
	for _, r := range access.Roles {
		var got []access.Permission
		for _, p := range access.Permissions {
			if r.Allows(p) {
				got = append(got, p)
			}
		}
		if fmt.Sprint(got) != want[r] {
			t.Errorf("%s grants %v; want %s", r, got, want[r])
		}
	}
	if access.Role("root").Allows(access.Read) {
		t.Error("an unknown role grants read")
	}
	for _, bad := range []string{"", "Admin", "root", "viewer "} {
		if _, err := access.ParseRole(bad); err == nil {
			t.Errorf("ParseRole(%q) accepted", bad)
		}
	}
}

type tokens map[string]store.Token

func (m tokens) TokenByHash(_ context.Context, hash string) (store.Token, error) {
	if hash == apitoken.Hash("broken-store") {
		return store.Token{}, errors.New("disk on fire")
	}
	if t, ok := m[hash]; ok {
		return t, nil
	}
	return store.Token{}, store.ErrNotFound
}

func TestAuthenticate(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := tokens{
		apitoken.Hash("s-alice"): {Name: "alice", Role: "operator", JobPrefix: "web-", ExpiresAt: now.Add(time.Second)},
		apitoken.Hash("s-old"):   {Name: "old", Role: "admin", ExpiresAt: now},
		apitoken.Hash("s-odd"):   {Name: "odd", Role: "superuser"},
	}
	a := access.NewAuthenticator("boot", ts, clock.NewFake(now))
	for _, tc := range []struct {
		secret string
		want   access.Principal
		err    error
	}{
		{"boot", access.Bootstrap, nil},
		{"s-alice", access.Principal{Name: "alice", Role: access.Operator, JobPrefix: "web-"}, nil},
		{"s-old", access.Principal{}, access.ErrExpired},
		{"s-odd", access.Principal{}, access.ErrUnauthenticated},
		{"nope", access.Principal{}, access.ErrUnauthenticated},
		{"", access.Principal{}, access.ErrUnauthenticated},
		{"has space", access.Principal{}, access.ErrUnauthenticated},
	} {
		p, err := a.Authenticate(context.Background(), tc.secret)
		if p != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("Authenticate(%q) = %+v, %v; want %+v, %v", tc.secret, p, err, tc.want, tc.err)
		}
	}
	if _, err := a.Authenticate(context.Background(), "broken-store"); err == nil || errors.Is(err, access.ErrUnauthenticated) {
		t.Errorf("a store failure = %v; want an error that is not ErrUnauthenticated", err)
	}
	if !a.Required() || access.NewAuthenticator("", ts, nil).Required() {
		t.Error("Required is wrong")
	}
	// A confined principal sees its own jobs only.
	p := access.Principal{Name: "alice", Role: access.Operator, JobPrefix: "web-"}
	if !p.SeesJob("web-a") || p.SeesJob("db-a") || !access.Bootstrap.SeesJob("db-a") {
		t.Error("SeesJob is wrong")
	}
}
