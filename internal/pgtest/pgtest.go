// Package pgtest gives tests a private PostgreSQL schema on the server the
// test script guarantees (ALMANAC_TEST_PG, default
// postgres://postgres@127.0.0.1:5432/test). Each call creates a schema with
// a unique name and drops it, with everything in it, when the test ends, so
// tests can run in parallel against one database and leave nothing behind.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// DefaultURL is the server tests use when ALMANAC_TEST_PG is not set.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// ServerURL returns the URL of the test server.
func ServerURL() string {
	if u := os.Getenv("ALMANAC_TEST_PG"); u != "" {
		return u
	}
	return DefaultURL
}

// Schema creates a fresh schema, registers its removal with t.Cleanup and
// returns a connection URL whose search_path points at it. When the server
// cannot be reached the test stops as package testenv says: it fails under
// scripts/test (which starts a server when the machine has none) and skips
// in a plain go test.
func Schema(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	base := ServerURL()
	conn, err := pgx.Connect(ctx, base)
	testenv.Need(t, "a PostgreSQL server at "+base, "start one there or set ALMANAC_TEST_PG to one", err)
	defer conn.Close(context.Background())

	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	name := "t_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: drop schema %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", name, err)
		}
	})
	return WithSearchPath(t, base, name)
}

// WithSearchPath returns u with its search_path set to schema.
func WithSearchPath(t testing.TB, u, schema string) string {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatalf("pgtest: parse %q: %v", u, err)
	}
	q := parsed.Query()
	q.Set("search_path", schema)
	parsed.RawQuery = q.Encode()
	return parsed.String()
}
