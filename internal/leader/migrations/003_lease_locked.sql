-- locked records whether the lease's holder held the election's advisory
-- lock when it last took or renewed the lease. Only then does a node that
-- finds the lock free know the holder's session is gone and take the
-- lease over early; a holder that never had the lock (it took the lease
-- while another node's session held the lock, as when nodes start at the
-- same moment) keeps it until it expires like any other.
ALTER TABLE leader ADD COLUMN IF NOT EXISTS locked boolean NOT NULL DEFAULT false;
