-- Why a held run waits (gate, window, node down, its turn...), as the
-- controller last decided it; shown by the API, CLI and UI. A table of its
-- own, so the runs table and what older releases read are unchanged.
CREATE TABLE run_waiting (
    run_id bigint PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    kind   text NOT NULL,
    detail text NOT NULL DEFAULT '',
    until  timestamptz
);
