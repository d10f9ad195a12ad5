-- Each node records the highest schema version its binary knows, so the
-- leader can tell when no live node still reads what a contract step
-- removes (migrations/contract). Nodes of releases before this column
-- leave it 0: they count as knowing nothing newer than what they found.
ALTER TABLE nodes ADD COLUMN knows_schema integer NOT NULL DEFAULT 0;
