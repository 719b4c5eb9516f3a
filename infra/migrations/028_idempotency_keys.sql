-- Idempotency-Key (issue 24): the first answer to a POST sent with the header, kept 24 h so a retry with the same key
-- and the same request is answered with it byte for byte. Keys are scoped per account and mode (a live and a sandbox
-- key never share a key space). A row without a status is a request still running: `owner` names it, and past
-- `locked_until` (the ingress holding it died) a retry of the same request may take it over. Rows older than 24 h are
-- invisible to lookups and removed in bounded batches by the ingress's sweep (src/http/idempotency/IdempotencyStore.ts).
CREATE TABLE idempotency_keys (
  tenant_id     uuid NOT NULL,
  sandbox       boolean NOT NULL,
  key           text NOT NULL,
  -- sha256 of method, path with query, and the raw body: "the same request".
  request_hash  bytea NOT NULL,
  owner         uuid NOT NULL,
  locked_until  timestamptz,
  status        integer,
  headers       jsonb,
  body          bytea,
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, sandbox, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Tenant isolation as every tenant table (007): requests read and write their account's rows as gep_app; the sweep
-- keeps the owner's role.
ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON idempotency_keys
  USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)
  WITH CHECK (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid);
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO gep_app;
