-- Node instances: two serve processes started with the same --node name
-- must not both act as that node. Each process registers with a random
-- instance id (and its host and pid, for the operator); a second process
-- finds the row held by a live instance and refuses to start.
ALTER TABLE nodes
    ADD COLUMN instance text NOT NULL DEFAULT '',
    ADD COLUMN host     text NOT NULL DEFAULT '',
    ADD COLUMN pid      integer NOT NULL DEFAULT 0;
