-- A node may now take the lease over before it expires, when it holds
-- the election's advisory lock and so knows the old leader's session is
-- gone. The fence reads the lease row FOR SHARE, so such a takeover waits
-- for the fenced writes in flight, and a write of the old term either
-- committed before the new term exists or is refused.
CREATE OR REPLACE FUNCTION almanac_fence(lease text, want bigint, margin interval) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    cur bigint;
    expires timestamptz;
BEGIN
    SELECT term, expires_at INTO cur, expires FROM leader WHERE name = lease FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'term % of "%" is stale: nobody holds the lease', want, lease USING ERRCODE = 'AL001';
    ELSIF cur <> want THEN
        RAISE EXCEPTION 'term % of "%" is stale: the current term is %', want, lease, cur USING ERRCODE = 'AL001';
    ELSIF expires <= clock_timestamp() + margin THEN
        RAISE EXCEPTION 'term % of "%" is stale: its lease expired', want, lease USING ERRCODE = 'AL001';
    END IF;
END
$$;
