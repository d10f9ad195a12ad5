-- The lease table (one row per election) and the fence that stores call
-- right before COMMIT of a write carrying a leadership term. Versions
-- before this migration created both ad hoc (the table from Go, the
-- function in the store's first migration), so this adopts them: IF NOT
-- EXISTS for the table, OR REPLACE for the function.
CREATE TABLE IF NOT EXISTS leader (
    name       text PRIMARY KEY,
    holder     text NOT NULL DEFAULT '',
    term       bigint NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL DEFAULT 'epoch'
);

-- almanac_fence raises AL001 unless want is the lease's current term with
-- more than margin of the lease left, by the database clock.
CREATE OR REPLACE FUNCTION almanac_fence(lease text, want bigint, margin interval) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    cur bigint;
    expires timestamptz;
BEGIN
    SELECT term, expires_at INTO cur, expires FROM leader WHERE name = lease;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'term % of "%" is stale: nobody holds the lease', want, lease USING ERRCODE = 'AL001';
    ELSIF cur <> want THEN
        RAISE EXCEPTION 'term % of "%" is stale: the current term is %', want, lease, cur USING ERRCODE = 'AL001';
    ELSIF expires <= clock_timestamp() + margin THEN
        RAISE EXCEPTION 'term % of "%" is stale: its lease expired', want, lease USING ERRCODE = 'AL001';
    END IF;
END
$$;
