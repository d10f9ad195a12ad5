-- Jobs: the spec is one JSON document so new spec fields need no migration;
-- the status columns are updated by the run writes in the same transaction.
CREATE TABLE jobs (
    name                 text COLLATE "C" PRIMARY KEY,
    spec                 jsonb NOT NULL,
    source               text NOT NULL,
    version              bigint NOT NULL,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL,
    last_schedule_time   timestamptz,
    last_successful_time timestamptz,
    succeeded            bigint NOT NULL DEFAULT 0,
    failed               bigint NOT NULL DEFAULT 0
);

-- Runs: one row per attempt; the UNIQUE key is the exactly-once guarantee,
-- whichever node inserts. NULL times mean "not yet"; a pending run with a
-- NULL ready_at is held by the controller.
CREATE TABLE runs (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job              text COLLATE "C" NOT NULL REFERENCES jobs (name) ON DELETE CASCADE,
    scheduled_time   timestamptz NOT NULL,
    attempt          integer NOT NULL,
    reason           text NOT NULL,
    state            text NOT NULL,
    node             text NOT NULL DEFAULT '',
    ready_at         timestamptz,
    created_at       timestamptz NOT NULL,
    started_at       timestamptz,
    finished_at      timestamptz,
    heartbeat_at     timestamptz,
    cancel_requested boolean NOT NULL DEFAULT false,
    exit_code        integer,
    output           bytea,
    error            text NOT NULL DEFAULT '',
    UNIQUE (job, scheduled_time, attempt)
);
CREATE INDEX runs_by_job ON runs (job, id);
CREATE INDEX runs_claimable ON runs (ready_at, id) WHERE state = 'pending' AND ready_at IS NOT NULL;
CREATE INDEX runs_running ON runs (heartbeat_at) WHERE state = 'running';
CREATE INDEX runs_by_node ON runs (node) WHERE state = 'running';

-- Events: append-only; no foreign key so a deleted job's history stays.
-- data is json (not jsonb) so it reads back byte for byte as written.
CREATE TABLE events (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    time     timestamptz NOT NULL,
    kind     text NOT NULL,
    job      text COLLATE "C" NOT NULL DEFAULT '',
    resource text NOT NULL DEFAULT '',
    run_id   bigint NOT NULL DEFAULT 0,
    message  text NOT NULL,
    data     json
);
CREATE INDEX events_by_job ON events (job, id);

-- Nodes: every serve process registers itself and refreshes heartbeat_at;
-- GET /api/v1/cluster lists them next to the leader lease.
CREATE TABLE nodes (
    id           text PRIMARY KEY,
    address      text NOT NULL DEFAULT '',
    version      text NOT NULL DEFAULT '',
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);

-- Wake-ups: statement-level triggers NOTIFY the schema's channel when a job
-- changes, a run becomes claimable (inserted or released) or a run finishes,
-- so nodes react at once instead of at their next poll. The payload names
-- the topic. Notifications are sent at commit and merged within a
-- transaction, so a burst of writes costs one message per topic.
CREATE FUNCTION almanac_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('almanac.' || left(TG_TABLE_SCHEMA, 54), TG_ARGV[0]);
    RETURN NULL;
END
$$;
CREATE TRIGGER jobs_notify AFTER INSERT OR UPDATE OF spec, source OR DELETE ON jobs
    FOR EACH STATEMENT EXECUTE FUNCTION almanac_notify('jobs');
CREATE TRIGGER runs_insert_notify AFTER INSERT ON runs
    FOR EACH STATEMENT EXECUTE FUNCTION almanac_notify('runs');
CREATE TRIGGER runs_release_notify AFTER UPDATE OF ready_at ON runs
    FOR EACH STATEMENT EXECUTE FUNCTION almanac_notify('runs');
CREATE TRIGGER runs_finish_notify AFTER UPDATE OF finished_at ON runs
    FOR EACH STATEMENT EXECUTE FUNCTION almanac_notify('finished');

-- Fencing: a controller write carrying a leadership term calls
-- almanac_fence right before COMMIT (in the same message). The function
-- and the lease table it reads belong to package leader, whose own
-- migrations create them.
