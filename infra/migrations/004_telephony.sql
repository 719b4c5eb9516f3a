-- Telephony (CTI): provider integrations, call records, the streamed call events, click-to-call requests.

CREATE TABLE cti_integrations (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  provider    text NOT NULL,
  -- sha256 of the bearer token; the token is shown once.
  token_hash  bytea NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX cti_integrations_tenant ON cti_integrations (tenant_id, provider);

CREATE TABLE calls (
  id                      uuid PRIMARY KEY,
  tenant_id               uuid NOT NULL REFERENCES tenants(id),
  sandbox                 boolean NOT NULL DEFAULT false,
  provider                text NOT NULL,
  call_id                 text NOT NULL,
  direction               text,
  from_number             text,
  to_number               text,
  contact_id              uuid REFERENCES contacts(id),
  status                  text NOT NULL,
  started_at              timestamptz,
  answered_at             timestamptz,
  ended_at                timestamptz,
  answered                boolean,
  duration_seconds        integer,
  agent                   jsonb,
  caller                  jsonb,
  outcome                 text,
  outcome_raw             text,
  recording_url           text,
  transcript              jsonb,
  transcript_truncated    boolean NOT NULL DEFAULT false,
  transcript_received_at  timestamptz,
  summary                 text,
  language                text,
  metadata                jsonb NOT NULL DEFAULT '{}',
  version                 integer NOT NULL DEFAULT 1,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, provider, call_id)
);
CREATE INDEX calls_contact ON calls (contact_id, started_at DESC, id);

CREATE TABLE call_events (
  id           bigserial PRIMARY KEY,
  tenant_id    uuid NOT NULL,
  provider     text NOT NULL,
  call_id      text NOT NULL,
  event_type   text NOT NULL,
  payload      jsonb NOT NULL,
  envelope_id  text NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX call_events_call ON call_events (tenant_id, provider, call_id, id);

CREATE TABLE call_dial_requests (
  id           uuid PRIMARY KEY,
  tenant_id    uuid NOT NULL,
  sandbox      boolean NOT NULL,
  contact_id   uuid NOT NULL REFERENCES contacts(id),
  to_number    text NOT NULL,
  provider     text,
  agent        jsonb,
  status       text NOT NULL DEFAULT 'requested',
  requested_by text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
