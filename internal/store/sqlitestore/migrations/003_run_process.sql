-- The process group a running run's command was started in, and the start
-- time of its leader (clock ticks since boot, /proc/PID/stat field 22), so
-- a restarted daemon can stop what its previous life left running without
-- signalling a process that merely reuses the pid. 0 = not recorded.
ALTER TABLE runs ADD COLUMN pgid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN proc_start INTEGER NOT NULL DEFAULT 0;
