-- Foundation schema. Every business row carries tenant_id and sandbox (test-mode data never mixes with live data);
-- every unique key starts with them so tenants stay a natural shard key.
CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE TABLE tenants (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id              uuid NOT NULL REFERENCES tenants(id),
  sandbox                boolean NOT NULL,
  -- sha256 of the whole key; the key itself is shown once and never stored.
  key_hash               bytea NOT NULL UNIQUE,
  -- first characters, to let an operator recognise a key without holding it.
  display_prefix         text NOT NULL,
  scopes                 text[] NOT NULL,
  rate_limit_per_minute  integer,
  created_at             timestamptz NOT NULL DEFAULT now(),
  revoked_at             timestamptz
);

CREATE TABLE hotels (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  code        text NOT NULL,
  name        text NOT NULL,
  timezone    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, code)
);
CREATE UNIQUE INDEX hotels_tenant_name ON hotels (tenant_id, lower(name));

CREATE TABLE contacts (
  id                          uuid PRIMARY KEY,
  tenant_id                   uuid NOT NULL REFERENCES tenants(id),
  sandbox                     boolean NOT NULL,
  phone                       text,
  email                       text,
  first_name                  text,
  last_name                   text,
  language                    text NOT NULL DEFAULT 'en',
  date_of_birth               date,
  gender                      text,
  nationality                 text,
  document_type               text,
  document_number             text,
  address                     jsonb,
  email_consent               boolean,
  whatsapp_marketing_consent  boolean,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
-- Invariant: one contact per tenant + phone and per tenant + email, under any concurrency.
CREATE UNIQUE INDEX contacts_phone ON contacts (tenant_id, sandbox, phone) WHERE phone IS NOT NULL;
CREATE UNIQUE INDEX contacts_email ON contacts (tenant_id, sandbox, email) WHERE email IS NOT NULL;

CREATE TABLE contact_hotels (
  contact_id     uuid NOT NULL REFERENCES contacts(id),
  hotel_id       uuid NOT NULL REFERENCES hotels(id),
  tenant_id      uuid NOT NULL,
  sandbox        boolean NOT NULL,
  first_seen_at  timestamptz NOT NULL DEFAULT now(),
  last_seen_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (contact_id, hotel_id)
);

-- Audit trail of consent claims as they arrived (who said what, when, through which source).
CREATE TABLE consent_records (
  id           bigserial PRIMARY KEY,
  tenant_id    uuid NOT NULL,
  sandbox      boolean NOT NULL,
  contact_id   uuid NOT NULL REFERENCES contacts(id),
  channel      text NOT NULL CHECK (channel IN ('email', 'whatsapp')),
  granted      boolean NOT NULL,
  source       text NOT NULL,
  envelope_id  text NOT NULL,
  recorded_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX consent_records_contact ON consent_records (contact_id, recorded_at);

CREATE TABLE reservations (
  id                   uuid PRIMARY KEY,
  tenant_id            uuid NOT NULL REFERENCES tenants(id),
  sandbox              boolean NOT NULL,
  external_id          text NOT NULL,
  hotel_id             uuid NOT NULL REFERENCES hotels(id),
  confirmation_number  text,
  booking_id           text,
  check_in             date NOT NULL,
  check_out            date NOT NULL,
  nights               integer NOT NULL,
  booking_date         date,
  status               text NOT NULL,
  guest_stage          text NOT NULL,
  channel              text,
  source               text NOT NULL,
  company              text,
  amount               numeric,
  amount_net           numeric,
  currency             text,
  market_segment       text,
  agency               text,
  agency_code          text,
  external_created_at  timestamptz,
  external_updated_at  timestamptz,
  comments             text,
  metadata             jsonb,
  stays                jsonb NOT NULL DEFAULT '[]',
  extras               jsonb NOT NULL DEFAULT '[]',
  version              integer NOT NULL DEFAULT 1,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, sandbox, external_id)
);

CREATE TABLE reservation_guests (
  reservation_id            uuid NOT NULL REFERENCES reservations(id),
  position                  integer NOT NULL,
  tenant_id                 uuid NOT NULL,
  sandbox                   boolean NOT NULL,
  contact_id                uuid REFERENCES contacts(id),
  first_name                text NOT NULL,
  last_name                 text,
  email                     text,
  phone                     text,
  is_holder                 boolean NOT NULL DEFAULT false,
  pax_type                  text,
  date_of_birth             date,
  gender                    text,
  nationality               text,
  document_type             text,
  document_number           text,
  address                   jsonb,
  language                  text,
  email_consent             boolean,
  whatsapp_marketing_consent boolean,
  pre_checkin_completed_at  timestamptz,
  pre_checkin_source        text,
  PRIMARY KEY (reservation_id, position)
);
CREATE INDEX reservation_guests_contact ON reservation_guests (contact_id);

-- Core events (booking.created, ...): the record whose id the API returns and journeys start from.
CREATE TABLE events (
  id              uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL,
  sandbox         boolean NOT NULL,
  type            text NOT NULL,
  contact_id      uuid,
  hotel_id        uuid,
  reservation_id  uuid,
  source          text,
  payload         jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_tenant_created ON events (tenant_id, sandbox, created_at);

-- One row per envelope applied: a redelivered envelope finds its row, changes nothing and gets the same reply.
CREATE TABLE inbox (
  envelope_id   text PRIMARY KEY,
  tenant_id     uuid NOT NULL,
  actor         text NOT NULL,
  actor_key     text NOT NULL,
  reply         bytea NOT NULL,
  processed_at  timestamptz NOT NULL DEFAULT now()
);

-- Commands and events produced inside the state transaction, published to JetStream after commit
-- (Nats-Msg-Id = id, so a republish after a crash is deduplicated by the stream).
CREATE TABLE outbox (
  id            uuid PRIMARY KEY,
  tenant_id     uuid NOT NULL,
  subject       text NOT NULL,
  payload       bytea NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  published_at  timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (created_at) WHERE published_at IS NULL;

-- Envelopes that kept failing after every retry: kept whole for an operator, never silently dropped.
CREATE TABLE dead_letters (
  envelope_id  text PRIMARY KEY,
  tenant_id    uuid,
  actor        text NOT NULL,
  subject      text NOT NULL,
  payload      bytea NOT NULL,
  error        text NOT NULL,
  attempts     integer NOT NULL,
  failed_at    timestamptz NOT NULL DEFAULT now()
);
