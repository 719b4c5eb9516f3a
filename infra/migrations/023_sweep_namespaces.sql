-- The rest of the sweeps act only for their own deployment (GEP_NAMESPACE), as journey runs (021) and CDP bulk jobs
-- (022) already do: a sweep publishes into its own streams, so a deployment sharing the database (every test file's
-- platform, a staged migration) would otherwise carry another's rows on with its own workers and settings.
--   reservations: the deployment that last wrote one runs its date scans (webhook date events, journey date triggers);
--   conversations: the deployment whose message actor last touched one closes it when idle;
--   loyalty_auctions: the deployment that created one closes it.
-- Rows from before these columns have none and are anyone's, as before.
ALTER TABLE reservations ADD COLUMN namespace text;
ALTER TABLE conversations ADD COLUMN namespace text;
ALTER TABLE loyalty_auctions ADD COLUMN namespace text;
