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

-- almanac_agent_fence raises AL001 unless want is the current term of the
-- lease and the lease has more than margin left by the database clock. A
-- fenced write sends it and COMMIT in one message.
CREATE FUNCTION almanac_agent_fence(lease text, want bigint, margin interval) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    cur bigint;
    expires timestamptz;
BEGIN
    SELECT term, expires_at INTO cur, expires FROM leader WHERE name = lease;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'term % of "%" is stale: nobody holds the lease', want, lease USING ERRCODE = 'AL001';
    ELSIF cur <> want THEN
        RAISE EXCEPTION 'term % of "%" is stale: the current term is %', want, lease, cur USING ERRCODE = 'AL001';
    ELSIF expires <= clock_timestamp() + margin THEN
        RAISE EXCEPTION 'term % of "%" is stale: its lease expired', want, lease USING ERRCODE = 'AL001';
    END IF;
END
$$;
