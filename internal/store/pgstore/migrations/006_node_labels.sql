-- Node labels: each node registers the labels given by serve's
-- --node-label as a JSON object of strings, for the cluster view and for
-- jobs that select nodes by label.
ALTER TABLE nodes
    ADD COLUMN labels text NOT NULL DEFAULT '{}';
