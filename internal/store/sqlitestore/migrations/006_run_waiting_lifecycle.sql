-- Why a held run waits (gate, window, node down, its turn...), as the
-- controller last decided it; shown by the API, CLI and UI. A table of its
-- own, so the runs table is unchanged.
CREATE TABLE run_waiting (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    kind   TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    until  INTEGER
);
