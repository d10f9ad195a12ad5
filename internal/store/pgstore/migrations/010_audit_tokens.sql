-- Audit: who caused an event, how and from where ('' = the daemon itself).
ALTER TABLE events ADD COLUMN actor text NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN via text NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN remote text NOT NULL DEFAULT '';
CREATE INDEX events_by_actor ON events (actor, id) WHERE actor <> '';
-- Named API tokens with roles; only the secret's SHA-256 is kept.
CREATE TABLE api_tokens (
    name       text PRIMARY KEY,
    hash       text NOT NULL UNIQUE,
    role       text NOT NULL,
    job_prefix text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    created_by text NOT NULL DEFAULT '',
    expires_at timestamptz
);
