-- CDP: visitor tracking settings, anonymous visitors and their sessions and events, identity stitching (visitor →
-- one current contact, every link kept as an identity event), post-checkout links (one per partner reservation,
-- which is what makes its checkout.completed once), and bulk reservation jobs with their items.
-- The visitor actor (key: visitor, else session, else cart) owns cdp_visitors, cdp_sessions, cdp_events,
-- cdp_identity_events and cdp_checkouts; the API owns cdp_settings and creates batches; the bulk runner owns the
-- batches' progress (a lease per batch) and the items' outcomes.

CREATE TABLE cdp_settings (
  tenant_id         uuid NOT NULL REFERENCES tenants(id),
  sandbox           boolean NOT NULL,
  visitor_tracking  boolean NOT NULL DEFAULT false,
  allowed_domains   text[] NOT NULL DEFAULT '{}',
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox)
);

-- A visitor has at most one current contact; a later different contact re-points it (never a merge of contacts).
CREATE TABLE cdp_visitors (
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  sandbox      boolean NOT NULL,
  visitor_id   text NOT NULL,
  contact_id   uuid REFERENCES contacts(id),
  linked_at    timestamptz,
  first_seen   timestamptz NOT NULL DEFAULT now(),
  last_seen    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox, visitor_id)
);

-- A session of a visitor, with the device and UTM it arrived with; contact_id is set by identify or by a checkout.
CREATE TABLE cdp_sessions (
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  sandbox      boolean NOT NULL,
  session_id   text NOT NULL,
  visitor_id   text,
  contact_id   uuid REFERENCES contacts(id),
  reservation_id uuid,
  device       jsonb,
  utm          jsonb,
  referrer     text,
  first_seen   timestamptz NOT NULL DEFAULT now(),
  last_seen    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox, session_id)
);
CREATE INDEX cdp_sessions_visitor ON cdp_sessions (tenant_id, sandbox, visitor_id);

CREATE TABLE cdp_events (
  id           bigserial PRIMARY KEY,
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  sandbox      boolean NOT NULL,
  visitor_id   text NOT NULL,
  session_id   text NOT NULL,
  contact_id   uuid REFERENCES contacts(id),
  type         text NOT NULL,
  -- Path, query and fragment only: the domain is stripped at the ingress.
  url          text,
  title        text,
  data         jsonb,
  device       jsonb,
  utm          jsonb,
  referrer     text,
  ts           timestamptz NOT NULL,
  -- A hash of the event as sent: a retried request stores nothing twice.
  dedupe_key   text NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, sandbox, visitor_id, dedupe_key)
);
CREATE INDEX cdp_events_visitor ON cdp_events (tenant_id, sandbox, visitor_id, ts);
CREATE INDEX cdp_events_contact ON cdp_events (tenant_id, sandbox, contact_id, ts) WHERE contact_id IS NOT NULL;

-- Every link of a visitor to a contact, explainable (and later undoable): linked, already_linked, reassigned, checkout.
CREATE TABLE cdp_identity_events (
  id                   bigserial PRIMARY KEY,
  tenant_id            uuid NOT NULL REFERENCES tenants(id),
  sandbox              boolean NOT NULL,
  visitor_id           text,
  session_id           text,
  contact_id           uuid NOT NULL REFERENCES contacts(id),
  previous_contact_id  uuid,
  kind                 text NOT NULL CHECK (kind IN ('linked', 'already_linked', 'reassigned', 'checkout')),
  backfilled_events    integer NOT NULL DEFAULT 0,
  at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cdp_identity_events_visitor ON cdp_identity_events (tenant_id, sandbox, visitor_id, at);

-- One post-checkout link per partner reservation: a repeat (a batch retried, a bulk item re-run) changes nothing.
CREATE TABLE cdp_checkouts (
  tenant_id                uuid NOT NULL REFERENCES tenants(id),
  sandbox                  boolean NOT NULL,
  external_reservation_id  text NOT NULL,
  reservation_id           uuid NOT NULL,
  contact_id               uuid REFERENCES contacts(id),
  visitor_id               text,
  session_id               text,
  cart_id                  text,
  utm                      jsonb,
  event_id                 uuid NOT NULL,
  at                       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, sandbox, external_reservation_id)
);

-- A bulk job: accepted whole (items stored with it before the 202), processed in the background by whichever worker
-- holds its lease; a worker that dies lets the lease lapse and another takes over the items without an outcome.
CREATE TABLE cdp_batches (
  id               text PRIMARY KEY,
  tenant_id        uuid NOT NULL REFERENCES tenants(id),
  sandbox          boolean NOT NULL,
  status           text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  total            integer NOT NULL,
  idempotency_key  text,
  owner            text,
  lease_until      timestamptz,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  completed_at     timestamptz
);
CREATE UNIQUE INDEX cdp_batches_idempotency ON cdp_batches (tenant_id, sandbox, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX cdp_batches_pending ON cdp_batches (lease_until) WHERE status IN ('queued', 'running');

CREATE TABLE cdp_batch_items (
  batch_id   text NOT NULL REFERENCES cdp_batches(id),
  tenant_id  uuid NOT NULL REFERENCES tenants(id),
  idx        integer NOT NULL,
  payload    jsonb NOT NULL,
  outcome    text CHECK (outcome IN ('succeeded', 'failed')),
  error      jsonb,
  PRIMARY KEY (batch_id, idx)
);
CREATE INDEX cdp_batch_items_pending ON cdp_batch_items (batch_id, idx) WHERE outcome IS NULL;

SELECT gep_enable_tenant_isolation(ARRAY['cdp_settings', 'cdp_visitors', 'cdp_sessions', 'cdp_events',
  'cdp_identity_events', 'cdp_checkouts', 'cdp_batches', 'cdp_batch_items']);
