-- A run belongs to the deployment (GEP_NAMESPACE) whose journey actor created it: only that deployment's timer sweep
-- wakes it, so two deployments sharing a database (test runs, a staged migration) never wake each other's runs into
-- their own streams (where the other deployment's actors, channels and SMTP server would carry them on).
-- Runs from before this column have none and are woken by any deployment, as before.
ALTER TABLE journey_runs ADD COLUMN namespace text;

DROP INDEX journey_runs_due;
CREATE INDEX journey_runs_due ON journey_runs (namespace, wake_at) WHERE state = 'waiting' AND wake_published < wake_seq;
