-- Managed resources (package fleet). Claims: one row per (resource,
-- transition instant); the primary key is the at-most-once guarantee,
-- whichever node inserts.
CREATE TABLE resource_claims (
    resource_id text COLLATE "C" NOT NULL,
    instant     timestamptz NOT NULL,
    action      text NOT NULL,
    claimed_at  timestamptz NOT NULL,
    PRIMARY KEY (resource_id, instant)
);

-- The saved inventory: the scheduler's JSON document per resource (json,
-- not jsonb, so it reads back byte for byte).
CREATE TABLE resource_inventory (
    id         text COLLATE "C" PRIMARY KEY,
    data       json NOT NULL,
    updated_at timestamptz NOT NULL
);

-- Single-row table: the instant up to which transitions were evaluated.
CREATE TABLE resource_checkpoint (
    id      integer PRIMARY KEY CHECK (id = 1),
    instant timestamptz NOT NULL
);

CREATE INDEX events_by_resource ON events (resource, id) WHERE resource <> '';
