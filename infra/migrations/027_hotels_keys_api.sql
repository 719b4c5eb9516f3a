-- Hotels, API keys and telephony integrations managed over the API (issue 24, items 4 and 5).
-- Hotels stay account configuration shared by live and sandbox (no sandbox column, like tenant_settings): a sandbox
-- reservation names the same hotels as a live one.
ALTER TABLE hotels
  ADD COLUMN country          text,
  ADD COLUMN default_language text,
  ADD COLUMN check_in_time    time,
  ADD COLUMN check_out_time   time,
  ADD COLUMN updated_at       timestamptz NOT NULL DEFAULT now();
UPDATE hotels SET updated_at = created_at;
-- The list, newest first, keyset (created_at, id).
CREATE INDEX hotels_tenant_created ON hotels (tenant_id, created_at DESC, id DESC);

-- A key's name (set over the API; keys made before have none) and when it last authenticated (written at most once a
-- minute per key and ingress: src/auth/ApiKeys.ts).
ALTER TABLE api_keys
  ADD COLUMN name          text,
  ADD COLUMN last_used_at  timestamptz;
CREATE INDEX api_keys_tenant_created ON api_keys (tenant_id, created_at DESC, id DESC);
CREATE INDEX cti_integrations_tenant_created ON cti_integrations (tenant_id, created_at DESC, id DESC);
