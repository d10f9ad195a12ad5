-- Fanned-out runs: a job whose nodes selector is not `any` turns each
-- instant into one run per chosen node, and target names that node (only
-- it may claim the run; '' = any node, as before). The exactly-once key
-- becomes (job, instant, target, attempt).
ALTER TABLE runs ADD COLUMN target text NOT NULL DEFAULT '';
ALTER TABLE runs DROP CONSTRAINT runs_job_scheduled_time_attempt_key;
ALTER TABLE runs ADD CONSTRAINT runs_job_instant_target_attempt_key
    UNIQUE (job, scheduled_time, target, attempt);
CREATE INDEX runs_by_target ON runs (target, id) WHERE target <> '';
