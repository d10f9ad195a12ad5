-- Managed resources (package fleet). Claims: one row per (resource,
-- transition instant); the primary key is the at-most-once guarantee.
CREATE TABLE resource_claims (
    resource_id TEXT NOT NULL,
    instant     INTEGER NOT NULL,
    action      TEXT NOT NULL,
    claimed_at  INTEGER NOT NULL,
    PRIMARY KEY (resource_id, instant)
);

-- The saved inventory: the scheduler's JSON document per resource.
CREATE TABLE resource_inventory (
    id         TEXT PRIMARY KEY,
    data       TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

-- Single-row table: the instant up to which transitions were evaluated.
CREATE TABLE resource_checkpoint (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    instant INTEGER NOT NULL
);

CREATE INDEX events_by_resource ON events (resource, id) WHERE resource <> '';
