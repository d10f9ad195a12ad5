-- The agent's resource state: one row per resource the apply engine
-- checked. NULL is "never".
CREATE TABLE agent_state (
    ref     text PRIMARY KEY,
    checked timestamptz,
    synced  timestamptz
);

-- Apply reports. head is the report without resources and events (what
-- lists read); body holds those two, read when one report is shown.
CREATE TABLE agent_reports (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    host         text NOT NULL,
    started      timestamptz NOT NULL,
    ended        timestamptz NOT NULL,
    status       text NOT NULL,
    trigger_kind text NOT NULL,
    head         jsonb NOT NULL,
    body         jsonb NOT NULL
);
CREATE INDEX agent_reports_ended ON agent_reports (ended);

