-- B2B CRM: accounts (agencies, tour operators, OTAs, corporates, consortia) in a hierarchy of at most three levels,
-- their codes, contacts and deals, and the attribution of reservations to accounts.

-- An account and its place in the tree: `path` lists the ids from the root to the account itself, so descendants
-- are `path @> ARRAY[id]` (a GIN index) and a move rewrites the paths of one subtree. Tree changes of a tenant are
-- serialised by the b2b actor (an advisory lock per tenant and mode), the CHECKs are the last line of defence.
CREATE TABLE b2b_accounts (
  id             uuid PRIMARY KEY,
  tenant_id      uuid NOT NULL REFERENCES tenants(id),
  sandbox        boolean NOT NULL,
  name           text NOT NULL,
  type           text NOT NULL CHECK (type IN ('agency', 'tour_operator', 'ota', 'corporate', 'consortium', 'other')),
  parent_id      uuid REFERENCES b2b_accounts(id),
  path           uuid[] NOT NULL,
  depth          smallint NOT NULL CHECK (depth BETWEEN 1 AND 3),
  email_domains  text[] NOT NULL DEFAULT '{}',
  desk_emails    text[] NOT NULL DEFAULT '{}',
  phone          text,
  country        text,
  owner_user_id  text,
  version        integer NOT NULL DEFAULT 1,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (depth = cardinality(path) AND path[depth] = id)
);
CREATE INDEX b2b_accounts_parent ON b2b_accounts (parent_id);
CREATE INDEX b2b_accounts_path ON b2b_accounts USING gin (path);
CREATE INDEX b2b_accounts_email_domains ON b2b_accounts USING gin (email_domains);
CREATE INDEX b2b_accounts_name ON b2b_accounts (tenant_id, sandbox, name, id);

-- Every code that names an account: agency codes, promo codes, rate codes (hotel-specific or chain-wide, with a
-- validity), the IATA number and the partner's external id. `code` is the normalised form (trimmed, spaces collapsed,
-- upper-case; IATA digits only) that attribution matches on; `display` is the code as it was sent.
CREATE TABLE b2b_codes (
  id          uuid PRIMARY KEY,
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  sandbox     boolean NOT NULL,
  account_id  uuid NOT NULL REFERENCES b2b_accounts(id),
  kind        text NOT NULL CHECK (kind IN ('agency_code', 'promo_code', 'rate_code', 'iata', 'external_id')),
  code        text NOT NULL,
  display     text NOT NULL,
  hotel_id    uuid REFERENCES hotels(id),
  valid_from  date,
  valid_to    date,
  -- The won corporate-rate deal that registered this code, if one did.
  deal_id     uuid,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_from <= valid_to)
);
-- A code names one account per tenant and mode (per hotel for hotel-specific codes).
CREATE UNIQUE INDEX b2b_codes_unique ON b2b_codes
  (tenant_id, sandbox, kind, code, coalesce(hotel_id, '00000000-0000-0000-0000-000000000000'::uuid));
CREATE INDEX b2b_codes_account ON b2b_codes (account_id);

-- People at accounts: contacts resolved by the shared identity rules (the same person is the same contact).
CREATE TABLE b2b_account_contacts (
  account_id  uuid NOT NULL REFERENCES b2b_accounts(id),
  contact_id  uuid NOT NULL REFERENCES contacts(id),
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  sandbox     boolean NOT NULL,
  role        text CHECK (role IN ('booker', 'decision_maker', 'travel_manager', 'accounts', 'other')),
  title       text,
  is_primary  boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, contact_id)
);
CREATE UNIQUE INDEX b2b_account_contacts_primary ON b2b_account_contacts (account_id) WHERE is_primary;
CREATE INDEX b2b_account_contacts_contact ON b2b_account_contacts (contact_id);

CREATE TABLE b2b_deals (
  id              uuid PRIMARY KEY,
  tenant_id       uuid NOT NULL REFERENCES tenants(id),
  sandbox         boolean NOT NULL,
  account_id      uuid NOT NULL REFERENCES b2b_accounts(id),
  contact_id      uuid REFERENCES contacts(id),
  name            text NOT NULL,
  type            text NOT NULL CHECK (type IN ('group', 'corporate_rate', 'allotment', 'event', 'series', 'other')),
  stage           text NOT NULL CHECK (stage IN ('lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost')),
  lost_reason     text,
  hotel_ids       uuid[] NOT NULL DEFAULT '{}',
  arrival         date,
  departure       date,
  room_nights     integer,
  value_amount    numeric,
  value_currency  text,
  probability     smallint,
  expected_close  date,
  rate_codes      text[] NOT NULL DEFAULT '{}',
  external_id     text,
  owner_user_id   text,
  closed_at       timestamptz,
  version         integer NOT NULL DEFAULT 1,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX b2b_deals_account ON b2b_deals (account_id, created_at, id);
CREATE INDEX b2b_deals_tenant ON b2b_deals (tenant_id, sandbox, created_at, id);

-- The account a reservation is attributed to, written by the reservation actor in the transaction of every upsert.
-- A row exists only when there is something to say (an account, a suggestion, or a manual decision).
CREATE TABLE b2b_attributions (
  reservation_id         uuid PRIMARY KEY REFERENCES reservations(id),
  tenant_id              uuid NOT NULL REFERENCES tenants(id),
  sandbox                boolean NOT NULL,
  account_id             uuid REFERENCES b2b_accounts(id),
  rule                   text CHECK (rule IN ('agency_code', 'promo_code', 'rate_code', 'agency_id', 'manual')),
  matched                text,
  deal_id                uuid,
  suggestion_account_id  uuid REFERENCES b2b_accounts(id),
  suggestion_domain      text,
  manual                 boolean NOT NULL DEFAULT false,
  decided_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX b2b_attributions_account ON b2b_attributions (account_id) WHERE account_id IS NOT NULL;

SELECT gep_enable_tenant_isolation(ARRAY['b2b_accounts', 'b2b_codes', 'b2b_account_contacts', 'b2b_deals', 'b2b_attributions']);
