-- Loyalty SSO: the OpenID Connect provider's state, its clients and signing keys, the passwordless sign-in codes and
-- the club transfer. Secrets are stored encrypted (client secrets, private keys: the provider needs them back) or
-- hashed (sign-in codes, club codes and transfer tokens: only compared).

-- What oidc-provider stores (sessions, interactions, grants, codes, access tokens), one row per model instance. Ids are
-- random and looked up before a tenant is known, so the table is platform-owned (no tenant_id, no row-level policy);
-- the tenant travels inside the payload. Rows past expires_at are invisible to the adapter and swept.
CREATE TABLE oidc_models (
  model       text NOT NULL,
  id          text NOT NULL,
  payload     jsonb NOT NULL,
  grant_id    text GENERATED ALWAYS AS (payload->>'grantId') STORED,
  uid         text GENERATED ALWAYS AS (payload->>'uid') STORED,
  account_id  text GENERATED ALWAYS AS (payload->>'accountId') STORED,
  expires_at  timestamptz NOT NULL,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_models_grant ON oidc_models (model, grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_models_uid ON oidc_models (model, uid) WHERE uid IS NOT NULL;
-- Sign-out revokes every access token of the member (not only the session's): found by account.
CREATE INDEX oidc_models_account ON oidc_models (account_id, model) WHERE account_id IS NOT NULL;
CREATE INDEX oidc_models_expiry ON oidc_models (expires_at);

-- A relying party (a hotel website or app) of one tenant; also a club client for the club transfer.
CREATE TABLE oidc_clients (
  client_id                 text PRIMARY KEY,
  tenant_id                 uuid NOT NULL REFERENCES tenants(id),
  sandbox                   boolean NOT NULL DEFAULT false,
  name                      text NOT NULL,
  secret_encrypted          bytea NOT NULL,
  redirect_uris             text[] NOT NULL,
  post_logout_redirect_uris text[] NOT NULL DEFAULT '{}',
  created_at                timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oidc_clients_tenant ON oidc_clients (tenant_id);

-- RS256 signing keys. `current` signs; `next` is published before it signs (relying parties cache the JWKS);
-- `retired` is published until the id_tokens it signed have expired. A ring is the set of one at-rest key (its
-- fingerprint): processes that cannot decrypt a set never see it (test runs share a database with keys of their own).
CREATE TABLE oidc_signing_keys (
  kid                   text PRIMARY KEY,
  ring                  text NOT NULL,
  private_jwk_encrypted bytea NOT NULL,
  state                 text NOT NULL CHECK (state IN ('next', 'current', 'retired')),
  created_at            timestamptz NOT NULL DEFAULT now(),
  retired_at            timestamptz
);
CREATE UNIQUE INDEX oidc_signing_keys_one_current ON oidc_signing_keys (ring) WHERE state = 'current';
CREATE UNIQUE INDEX oidc_signing_keys_one_next ON oidc_signing_keys (ring) WHERE state = 'next';

-- The one-time code of a sign-in interaction (one per interaction: a new email replaces it).
CREATE TABLE oidc_sign_in_codes (
  interaction_id text PRIMARY KEY,
  tenant_id      uuid NOT NULL REFERENCES tenants(id),
  email          text NOT NULL,
  member_id      uuid,
  code_hash      bytea NOT NULL,
  attempts       int NOT NULL DEFAULT 0,
  expires_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oidc_sign_in_codes_expiry ON oidc_sign_in_codes (expires_at);

-- Club transfer: a member's one-time code (exchanged once by a club client of the same tenant) and the transfer
-- token it became. Both keep the SSO grant they came from, so signing out ends them too.
CREATE TABLE loyalty_club_codes (
  code_hash   bytea PRIMARY KEY,
  tenant_id   uuid NOT NULL REFERENCES tenants(id),
  sandbox     boolean NOT NULL,
  member_id   uuid NOT NULL,
  grant_id    text,
  expires_at  timestamptz NOT NULL,
  consumed_at timestamptz,
  consumed_by text
);
CREATE TABLE loyalty_club_tokens (
  token_hash bytea PRIMARY KEY,
  tenant_id  uuid NOT NULL REFERENCES tenants(id),
  sandbox    boolean NOT NULL,
  client_id  text NOT NULL REFERENCES oidc_clients(client_id),
  -- The code it came from: a replayed code revokes what the first exchange minted.
  code_hash  bytea NOT NULL REFERENCES loyalty_club_codes(code_hash),
  member_id  uuid NOT NULL,
  grant_id   text,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX loyalty_club_tokens_member ON loyalty_club_tokens (member_id) WHERE revoked_at IS NULL;

SELECT gep_enable_tenant_isolation(ARRAY['oidc_clients', 'oidc_sign_in_codes', 'loyalty_club_codes', 'loyalty_club_tokens']);
