-- The process group a running run's command was started in, and the start
-- time of its leader (clock ticks since boot, /proc/PID/stat field 22), so
-- a restarted node can stop what its previous life left running without
-- signalling a process that merely reuses the pid. 0 = not recorded.
ALTER TABLE runs
    ADD COLUMN pgid       integer NOT NULL DEFAULT 0,
    ADD COLUMN proc_start bigint NOT NULL DEFAULT 0;
