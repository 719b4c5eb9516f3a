-- A bulk job belongs to the deployment (GEP_NAMESPACE) whose ingress accepted it: only that deployment's runners take
-- it, since they send its items into their own streams. Deployments sharing a database (every test file's platform,
-- a staged migration) would otherwise carry each other's jobs on. Jobs from before this column are anyone's.
ALTER TABLE cdp_batches ADD COLUMN namespace text;
