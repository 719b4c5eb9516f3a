-- Bounded storage (issue 29 item 4). The inbox keeps an envelope's row only while the envelope can still arrive again
-- (actors/runtime/inboxRetention.ts says when that is); the outbox keeps a row only until its messages are published
-- (the relay deletes it then: the outbox stream is the log of what was published).

-- The retention sweep removes the oldest rows first, in bounded batches.
CREATE INDEX inbox_processed ON inbox (processed_at);

-- Per deployment (GEP_NAMESPACE) sharing the database: the instant before which none of its envelopes can be delivered
-- again (its oldest message still in its ingress stream, its oldest outbox row not yet published, whichever is older),
-- as its workers last measured it. Envelope ids are not namespaced, so every deployment's sweep cuts at the oldest
-- floor: one deployment never removes the row another still needs. Global, like partition_leases: workers only.
CREATE TABLE inbox_floors (
  namespace   text PRIMARY KEY,
  floor_at    timestamptz NOT NULL,
  measured_at timestamptz NOT NULL
);
