-- The agent's resource state and apply reports. Times are Unix
-- microseconds (0 = never) so they sort and compare as integers; a report
-- is kept as two JSON documents: the head (everything but resources and
-- events) that lists read, and the body read when one report is shown.
-- Versions before this migration created these tables ad hoc, hence IF
-- NOT EXISTS: this migration adopts them.
CREATE TABLE IF NOT EXISTS agent_state (
    ref     TEXT PRIMARY KEY,
    checked INTEGER NOT NULL,
    synced  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS agent_reports (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    started      INTEGER NOT NULL,
    ended        INTEGER NOT NULL,
    status       TEXT NOT NULL,
    trigger_kind TEXT NOT NULL,
    head         TEXT NOT NULL,
    body         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_reports_ended ON agent_reports (ended);
