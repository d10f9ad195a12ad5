-- Why a held run waits (gate, window, node down, its turn...), as the
-- controller last decided it; shown by the API, CLI and UI. A table of its
-- own, so the runs table and what older releases read are unchanged.
CREATE TABLE run_waiting (
    run_id bigint PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    kind   text NOT NULL,
    detail text NOT NULL DEFAULT '',
    until  timestamptz
);

-- A job's wave pause is operator state: it lives beside the spec, so that
-- replacing the spec (a PUT, a manifest reload) does not resume it. The
-- pauses recorded in specs so far carry over.
ALTER TABLE jobs ADD COLUMN wave_paused boolean NOT NULL DEFAULT false;
UPDATE jobs SET wave_paused = true WHERE spec->>'wave_paused' = 'true';
