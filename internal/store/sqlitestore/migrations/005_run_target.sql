-- Fanned-out runs: a job whose nodes selector is not `any` turns each
-- instant into one run per chosen node, and target names that node (only
-- it may claim the run; '' = any node). The exactly-once key becomes
-- (job, instant, target, attempt), which needs the table rebuilt: SQLite
-- cannot change a UNIQUE constraint in place. The id sequence is carried
-- over so that ids of pruned runs are never handed out again.
CREATE TABLE runs_new (
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
    pgid             INTEGER NOT NULL DEFAULT 0,
    proc_start       INTEGER NOT NULL DEFAULT 0,
    target           TEXT NOT NULL DEFAULT '',
    UNIQUE (job, scheduled_time, target, attempt)
);
INSERT INTO runs_new (id, job, scheduled_time, attempt, reason, state, node, ready_at, created_at, started_at,
                      finished_at, heartbeat_at, cancel_requested, exit_code, output, error, pgid, proc_start)
SELECT id, job, scheduled_time, attempt, reason, state, node, ready_at, created_at, started_at,
       finished_at, heartbeat_at, cancel_requested, exit_code, output, error, pgid, proc_start
  FROM runs;
UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'runs'), 0))
 WHERE name = 'runs_new';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'runs_new', seq FROM sqlite_sequence WHERE name = 'runs'
   AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'runs_new');
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
CREATE INDEX runs_by_job ON runs (job, id);
CREATE INDEX runs_claimable ON runs (state, ready_at) WHERE state = 'pending';
CREATE INDEX runs_running ON runs (state, heartbeat_at) WHERE state = 'running';
CREATE INDEX runs_by_target ON runs (target, id) WHERE target <> '';
