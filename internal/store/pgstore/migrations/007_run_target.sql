-- Fanned-out runs: a job whose nodes selector is not `any` turns each
-- instant into one run per chosen node, and target names that node (only
-- it may claim the run; '' = any node, as before). The exactly-once key
-- becomes (job, instant, target, attempt).
--
-- Expand half: the column and the new key are added beside the old key
-- (job, scheduled_time, attempt), which the previous release's
-- INSERT ... ON CONFLICT names and so must keep until no node of that
-- release is live. Every run written so far has target '', so both keys
-- hold. contract/007_run_target.sql drops the old key; fan-out, which
-- needs several runs per (job, instant, attempt), waits for it.
ALTER TABLE runs ADD COLUMN target text NOT NULL DEFAULT '';
ALTER TABLE runs ADD CONSTRAINT runs_job_instant_target_attempt_key
    UNIQUE (job, scheduled_time, target, attempt);
CREATE INDEX runs_by_target ON runs (target, id) WHERE target <> '';
