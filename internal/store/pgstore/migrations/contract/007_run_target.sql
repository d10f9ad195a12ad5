-- Contract half of 007_run_target.sql: the old exactly-once key goes, so
-- one instant may have a run per target node. Run by the leader once no
-- live node knows less than schema 7. A database migrated by a build whose
-- 007 dropped the key at once has nothing left to drop.
ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_job_scheduled_time_attempt_key;
