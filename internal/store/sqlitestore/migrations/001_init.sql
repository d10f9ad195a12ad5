-- Jobs: the spec is one JSON document so new spec fields need no migration;
-- the status columns are updated by the run writes in the same transaction.
CREATE TABLE jobs (
    name                 TEXT PRIMARY KEY,
    spec                 TEXT NOT NULL,
    source               TEXT NOT NULL,
    version              INTEGER NOT NULL,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    last_schedule_time   INTEGER,
    last_successful_time INTEGER,
    succeeded            INTEGER NOT NULL DEFAULT 0,
    failed               INTEGER NOT NULL DEFAULT 0
);

-- Runs: one row per attempt; the UNIQUE key is the exactly-once guarantee.
-- Times are Unix microseconds (UTC), NULL for "not yet".
CREATE TABLE runs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    job              TEXT NOT NULL REFERENCES jobs (name) ON DELETE CASCADE,
    scheduled_time   INTEGER NOT NULL,
    attempt          INTEGER NOT NULL,
    reason           TEXT NOT NULL,
    state            TEXT NOT NULL,
    node             TEXT NOT NULL DEFAULT '',
    ready_at         INTEGER,
    created_at       INTEGER NOT NULL,
    started_at       INTEGER,
    finished_at      INTEGER,
    heartbeat_at     INTEGER,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    exit_code        INTEGER,
    output           BLOB,
    error            TEXT NOT NULL DEFAULT '',
    UNIQUE (job, scheduled_time, attempt)
);
CREATE INDEX runs_by_job ON runs (job, id);
CREATE INDEX runs_claimable ON runs (state, ready_at) WHERE state = 'pending';
CREATE INDEX runs_running ON runs (state, heartbeat_at) WHERE state = 'running';

-- Events: append-only; no foreign key so a deleted job's history stays.
CREATE TABLE events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    time     INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    job      TEXT NOT NULL DEFAULT '',
    resource TEXT NOT NULL DEFAULT '',
    run_id   INTEGER NOT NULL DEFAULT 0,
    message  TEXT NOT NULL,
    data     TEXT
);
CREATE INDEX events_by_job ON events (job, id);
