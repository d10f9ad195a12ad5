-- Audit: who caused an event, how and from where ('' = the daemon itself).
ALTER TABLE events ADD COLUMN actor TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN via TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN remote TEXT NOT NULL DEFAULT '';
CREATE INDEX events_by_actor ON events (actor, id) WHERE actor <> '';
-- Named API tokens with roles; only the secret's SHA-256 is kept.
CREATE TABLE api_tokens (
    name       TEXT PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,
    role       TEXT NOT NULL,
    job_prefix TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    expires_at INTEGER
);
