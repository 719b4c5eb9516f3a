-- Staff of a hotel group (issue 27): the people who sign in to the operator console. A staff member belongs to one
-- tenant; the same address may be staff of several tenants (a management company), each its own account.

-- One row per staff member. A removed member keeps its row (removed_at set): the audit log names who did what, and
-- an entry must still say who its actor was after the member left. The address is a work address, lower-cased.
CREATE TABLE staff_accounts (
  id                 uuid PRIMARY KEY,
  tenant_id          uuid NOT NULL,
  email              text NOT NULL,
  role               text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  last_signed_in_at  timestamptz,
  removed_at         timestamptz
);
-- One active member per address and tenant (409 STAFF_EXISTS); a removed one may be added again.
CREATE UNIQUE INDEX staff_accounts_active_email ON staff_accounts (tenant_id, email) WHERE removed_at IS NULL;
-- The sign-in looks an address up across tenants.
CREATE INDEX staff_accounts_email ON staff_accounts (email) WHERE removed_at IS NULL;
CREATE INDEX staff_accounts_list ON staff_accounts (tenant_id, created_at DESC, id DESC) WHERE removed_at IS NULL;

-- Emailed one-time codes: SHA-256 of the code salted with the row's id, never the code; 10 minutes, 5 wrong tries.
CREATE TABLE staff_sign_in_codes (
  id          uuid PRIMARY KEY,
  tenant_id   uuid NOT NULL,
  staff_id    uuid NOT NULL REFERENCES staff_accounts(id) ON DELETE CASCADE,
  code_hash   bytea NOT NULL,
  attempts    integer NOT NULL DEFAULT 0,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX staff_sign_in_codes_staff ON staff_sign_in_codes (staff_id, expires_at);
CREATE INDEX staff_sign_in_codes_expiry ON staff_sign_in_codes (expires_at);

-- Sessions: the cookie's token is found by its SHA-256 digest (a leaked table signs no one in). Idle expiry slides with
-- last_seen_at; expires_at is the absolute end.
CREATE TABLE staff_sessions (
  token_hash    bytea PRIMARY KEY,
  tenant_id     uuid NOT NULL,
  staff_id      uuid NOT NULL REFERENCES staff_accounts(id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);
CREATE INDEX staff_sessions_expiry ON staff_sessions (expires_at);

-- Who did what: a staff session opening a contact, and the actions of staff and API keys the console offers (resend,
-- stop, pause, staff changes, sign-ins). actor_id is the staff id or the API key id; contact_id is cleared by an
-- erasure of that guest (the entry stays: the account's record of its people's actions).
CREATE TABLE audit_log (
  id          uuid PRIMARY KEY,
  tenant_id   uuid NOT NULL,
  sandbox     boolean NOT NULL,
  at          timestamptz NOT NULL,
  actor_type  text NOT NULL CHECK (actor_type IN ('staff', 'api_key')),
  actor_id    text NOT NULL,
  action      text NOT NULL,
  contact_id  uuid,
  details     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_list ON audit_log (tenant_id, sandbox, at DESC, id DESC);
CREATE INDEX audit_log_contact ON audit_log (tenant_id, contact_id, at DESC, id DESC) WHERE contact_id IS NOT NULL;
CREATE INDEX audit_log_actor ON audit_log (tenant_id, actor_id, at DESC, id DESC);

SELECT gep_enable_tenant_isolation(ARRAY['staff_accounts', 'staff_sign_in_codes', 'staff_sessions', 'audit_log']);
