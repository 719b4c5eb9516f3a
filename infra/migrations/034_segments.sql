-- Saved segments (issue 25): an audience definition (schemas/segment.ts), checked when saved, evaluated when it is
-- used (preview, a broadcast's snapshot). `version` counts saves, for the ETag and If-Match of PATCH; a broadcast
-- copies the definition it snapshots, so no history is kept here.
CREATE TABLE segments (
  id           uuid PRIMARY KEY,
  tenant_id    uuid NOT NULL,
  sandbox      boolean NOT NULL,
  name         text NOT NULL,
  description  text,
  definition   jsonb NOT NULL,
  version      integer NOT NULL DEFAULT 1,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
-- The list: newest first within the account and mode.
CREATE INDEX segments_list ON segments (tenant_id, sandbox, created_at DESC, id DESC);

SELECT gep_enable_tenant_isolation(ARRAY['segments']);
