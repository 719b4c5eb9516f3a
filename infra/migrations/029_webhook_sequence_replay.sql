-- Webhook delivery a partner can reason about (issue 24, item 11): a per-object sequence number in every body, the
-- bodies emitted to each subscription (kept 14 days, for resend and replay), and the replays asked for (rate limit).

-- The last `sequence` given per tenant, mode and object key (`contact:<id>`, `reservation:<id>`, ...). Assigned in the
-- transaction that writes the event's outbox row (core/webhook/sequence.ts): the row lock orders two changes of one
-- object, and the value never falls below the database clock in microseconds, so a row removed after 30 idle days
-- (the sweep) restarts above every number it gave.
CREATE TABLE webhook_sequences (
  tenant_id   uuid NOT NULL,
  sandbox     boolean NOT NULL,
  object_key  text NOT NULL,
  last_value  bigint NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox, object_key)
);
CREATE INDEX webhook_sequences_age ON webhook_sequences (updated_at);

-- What was emitted to each subscription: the exact body every attempt sends (event_id and sequence inside), so a
-- resend or a replay sends the same bytes. Kept 14 days (the delivery log's retention), removed in bounded batches.
CREATE TABLE webhook_events (
  subscription_id  uuid NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  event_id         text NOT NULL,
  tenant_id        uuid NOT NULL,
  sandbox          boolean NOT NULL,
  event_type       text NOT NULL,
  body             text NOT NULL,
  emitted_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription_id, event_id)
);
CREATE INDEX webhook_events_window ON webhook_events (subscription_id, emitted_at, event_id);
CREATE INDEX webhook_events_age ON webhook_events (emitted_at);

-- Replays asked for: at most one being published per subscription and a few per hour (the route's rate limit).
CREATE TABLE webhook_replays (
  id               uuid PRIMARY KEY,
  subscription_id  uuid NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  tenant_id        uuid NOT NULL,
  sandbox          boolean NOT NULL,
  since            timestamptz NOT NULL,
  until            timestamptz NOT NULL,
  event_types      text[],
  events           integer NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  published_at     timestamptz
);
CREATE INDEX webhook_replays_subscription ON webhook_replays (subscription_id, created_at DESC);

-- Why an attempt was made (the event itself, a test, a resend, a replay) and which resend or replay it belongs to:
-- attempts are counted per run, so a resend gets the subscription's whole retry policy again.
ALTER TABLE webhook_deliveries
  ADD COLUMN trigger text NOT NULL DEFAULT 'event' CHECK (trigger IN ('event', 'test', 'resend', 'replay')),
  ADD COLUMN run_id text;
CREATE INDEX webhook_deliveries_page ON webhook_deliveries (subscription_id, attempted_at DESC, id DESC);

SELECT gep_enable_tenant_isolation(ARRAY['webhook_sequences', 'webhook_events', 'webhook_replays']);
