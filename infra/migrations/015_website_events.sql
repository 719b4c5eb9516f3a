-- Website events: sources and their three credentials, stored events (only those a journey awaits), their dedupe
-- keys, consent evidence, the per-source delivery log and the event catalogue. The website actor (key: the event's
-- dedupe key) owns website_events, website_event_keys and website_consent_audit; the API owns sources, keys, the
-- catalogue's declarations; the ingress appends to the delivery log.

CREATE TABLE website_sources (
  id                          uuid PRIMARY KEY,
  tenant_id                   uuid NOT NULL REFERENCES tenants(id),
  sandbox                     boolean NOT NULL,
  name                        text NOT NULL,
  allowed_origins             text[] NOT NULL DEFAULT '{}',
  allowed_events              text[] NOT NULL DEFAULT '{}',
  allowed_hotels              uuid[] NOT NULL DEFAULT '{}',
  consent_mode                text NOT NULL DEFAULT 'honour' CHECK (consent_mode IN ('honour', 'ignore')),
  rate_limit_per_minute       integer NOT NULL DEFAULT 600 CHECK (rate_limit_per_minute BETWEEN 1 AND 1000000),
  mapping                     jsonb,
  enabled                     boolean NOT NULL DEFAULT true,
  -- The signing secret of the webhook hook (AES-256-GCM under the at-rest key), and the one it replaced while both sign.
  signing_secret_encrypted    bytea,
  previous_secret_encrypted   bytea,
  previous_secret_expires_at  timestamptz,
  deleted_at                  timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX website_sources_list ON website_sources (tenant_id, sandbox, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- Server (svc_sk_), browser (svc_pk_) and webhook (svc_wh_) credentials, kept as SHA-256; at most two live per kind.
CREATE TABLE website_source_keys (
  id          uuid PRIMARY KEY,
  source_id   uuid NOT NULL REFERENCES website_sources(id),
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  sandbox     boolean NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('server', 'browser', 'webhook')),
  key_hash    bytea NOT NULL UNIQUE,
  prefix      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX website_source_keys_source ON website_source_keys (source_id, kind, created_at) WHERE revoked_at IS NULL;

-- Events a journey awaits, from an identified guest (rule 7); everything else is counted in the delivery log only.
CREATE TABLE website_events (
  id               uuid PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  sandbox          boolean NOT NULL,
  source_id        uuid NOT NULL REFERENCES website_sources(id),
  event            text NOT NULL,
  contact_id       uuid NOT NULL REFERENCES contacts(id),
  hotel_id         uuid,
  cart_id          text,
  session_id       text,
  idempotency_key  text,
  occurred_at      timestamptz NOT NULL,
  received_at      timestamptz NOT NULL DEFAULT now(),
  payload          jsonb NOT NULL
);
CREATE INDEX website_events_contact ON website_events (tenant_id, sandbox, contact_id, received_at DESC);

-- Dedupe of stored events: `ik:<idempotency_key>` for 7 days, `nat:<hash of event, cart|session, guest>` for 60 s.
CREATE TABLE website_event_keys (
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  sandbox     boolean NOT NULL,
  dedupe_key  text NOT NULL,
  event_id    uuid NOT NULL,
  contact     text NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, sandbox, dedupe_key)
);

-- The evidence of each consent claim a website event made for a contact, and what was done with it.
CREATE TABLE website_consent_audit (
  id           bigserial PRIMARY KEY,
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  sandbox      boolean NOT NULL,
  contact_id   uuid NOT NULL REFERENCES contacts(id),
  source_id    uuid NOT NULL,
  event_id     uuid NOT NULL,
  granted      boolean NOT NULL,
  outcome      text NOT NULL CHECK (outcome IN ('honoured', 'consent_evidence_missing', 'consent_evidence_stale',
                 'consent_ignored_opted_out', 'consent_source_ignores')),
  text         text,
  captured_at  timestamptz,
  language     text,
  form_id      text,
  ip           text,
  user_agent   text,
  recorded_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX website_consent_audit_contact ON website_consent_audit (contact_id, recorded_at);

-- Every request tied to a source (accepted or rejected), with its results; read for 14 days.
CREATE TABLE website_deliveries (
  id           bigserial PRIMARY KEY,
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  sandbox      boolean NOT NULL,
  source_id    uuid NOT NULL REFERENCES website_sources(id),
  credential   text NOT NULL CHECK (credential IN ('server', 'browser', 'webhook')),
  key_id       uuid,
  status       integer NOT NULL,
  error_code   text,
  origin       text,
  ip           text,
  user_agent   text,
  body_bytes   integer NOT NULL,
  body_sha256  text,
  test         boolean NOT NULL DEFAULT false,
  received     integer NOT NULL DEFAULT 0,
  accepted     integer NOT NULL DEFAULT 0,
  duplicate    integer NOT NULL DEFAULT 0,
  rejected     integer NOT NULL DEFAULT 0,
  results      jsonb,
  received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX website_deliveries_source ON website_deliveries (source_id, received_at DESC, id DESC);

-- The event names of a source: declared in advance ("not received" until one arrives) or first seen in traffic.
CREATE TABLE website_event_catalogue (
  source_id          uuid NOT NULL REFERENCES website_sources(id),
  name               text NOT NULL,
  tenant_id          uuid NOT NULL REFERENCES tenants(id),
  sandbox            boolean NOT NULL,
  description        text,
  declared           boolean NOT NULL DEFAULT false,
  first_received_at  timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, name)
);

SELECT gep_enable_tenant_isolation(ARRAY['website_sources', 'website_source_keys', 'website_events', 'website_event_keys',
  'website_consent_audit', 'website_deliveries', 'website_event_catalogue']);

-- The account's switch for the whole feature (403 feature_disabled when off); operators set it.
ALTER TABLE tenants ADD COLUMN website_events_enabled boolean NOT NULL DEFAULT true;
