-- Outbound webhooks: subscriptions, the per-attempt delivery log, reservation date-event keys, tenant settings.

CREATE TABLE webhook_subscriptions (
  id                          uuid PRIMARY KEY,
  tenant_id                   uuid NOT NULL REFERENCES tenants(id),
  sandbox                     boolean NOT NULL,
  url                         text NOT NULL,
  event_types                 text[] NOT NULL,
  headers                     jsonb NOT NULL DEFAULT '{}',
  enabled                     boolean NOT NULL DEFAULT true,
  -- why the platform disabled it (`gone`: the receiver answered 410); cleared when re-enabled.
  disabled_reason             text,
  description                 text,
  max_attempts                integer NOT NULL,
  initial_backoff_seconds     integer NOT NULL,
  max_backoff_seconds         integer NOT NULL,
  -- AES-256-GCM (version | iv | tag | ciphertext), key from configuration, the row id as associated data.
  secret_encrypted            bytea NOT NULL,
  -- after a rotation the previous secret keeps signing (second signature) until it expires.
  previous_secret_encrypted   bytea,
  previous_secret_expires_at  timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_tenant ON webhook_subscriptions (tenant_id, sandbox, created_at, id);

-- One row per delivery attempt (id = X-Webhook-Delivery); kept 14 days, then purged by the deliverer.
CREATE TABLE webhook_deliveries (
  seq              bigserial PRIMARY KEY,
  id               uuid NOT NULL UNIQUE,
  subscription_id  uuid NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  tenant_id        uuid NOT NULL,
  sandbox          boolean NOT NULL,
  event_id         text NOT NULL,
  event_type       text NOT NULL,
  attempt          integer NOT NULL,
  outcome          text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'gone', 'skipped')),
  response_status  integer,
  error            text,
  duration_ms      integer NOT NULL,
  next_attempt_at  timestamptz,
  attempted_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, seq DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (subscription_id, event_id);
CREATE INDEX webhook_deliveries_age ON webhook_deliveries (attempted_at);

-- Per-tenant settings (account configuration shared by live and sandbox, like hotels). Written defensively so it
-- composes with another migration that creates the same table for other settings.
CREATE TABLE IF NOT EXISTS tenant_settings (
  tenant_id   uuid PRIMARY KEY REFERENCES tenants(id),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE tenant_settings
  ADD COLUMN IF NOT EXISTS check_in_event_time time NOT NULL DEFAULT '15:00',
  ADD COLUMN IF NOT EXISTS check_out_event_time time NOT NULL DEFAULT '12:00';

-- One key per reservation, event and local date: the date scan may run any number of times, each event fires once.
CREATE TABLE reservation_date_events (
  reservation_id  uuid NOT NULL REFERENCES reservations(id),
  event_type      text NOT NULL CHECK (event_type IN ('reservation.checked_in', 'reservation.checked_out')),
  local_date      date NOT NULL,
  tenant_id       uuid NOT NULL,
  sandbox         boolean NOT NULL,
  local_time      time NOT NULL,
  timezone        text NOT NULL,
  scheduled_at    timestamptz NOT NULL,
  outbox_id       uuid NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (reservation_id, event_type, local_date)
);

CREATE INDEX IF NOT EXISTS reservations_hotel_check_in ON reservations (hotel_id, check_in);
CREATE INDEX IF NOT EXISTS reservations_hotel_check_out ON reservations (hotel_id, check_out);
