-- Why a held run waits (gate, window, node down, its turn...), as the
-- controller last decided it; shown by the API, CLI and UI. A table of its
-- own, so the runs table is unchanged.
CREATE TABLE run_waiting (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    kind   TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    until  INTEGER
);

-- A job's wave pause is operator state: it lives beside the spec, so that
-- replacing the spec (a PUT, a manifest reload) does not resume it. The
-- pauses recorded in specs so far carry over.
ALTER TABLE jobs ADD COLUMN wave_paused INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET wave_paused = 1 WHERE json_extract(spec, '$.wave_paused') = 1;
