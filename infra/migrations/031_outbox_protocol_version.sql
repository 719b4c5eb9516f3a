-- Rolling upgrades (issue 30): the format version of what an outbox row holds. A relay publishes only rows of versions
-- it knows, leaving newer ones to a newer release's relay. Expand only: the previous release writes rows without the
-- column (the default, 1, is its format) and reads the table without naming it.
ALTER TABLE outbox ADD COLUMN protocol_version smallint NOT NULL DEFAULT 1;
