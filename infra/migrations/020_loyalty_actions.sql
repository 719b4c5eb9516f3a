-- Loyalty action rules and per-member action limits (issue 14). The programme names, per action type, the points it
-- awards when a request sends none and how often one member may earn it: once ever (app_download), once per scope
-- key (a review per reservation) or without limit. A claim row per limited earning, unique per (member, action type,
-- scope key), makes a second award impossible even if two requests with different keys raced past the actor's check.

ALTER TABLE loyalty_programs ADD COLUMN action_rules jsonb NOT NULL DEFAULT '[]'::jsonb
  CHECK (jsonb_typeof(action_rules) = 'array');

CREATE TABLE loyalty_action_claims (
  tenant_id    uuid NOT NULL REFERENCES tenants(id),
  sandbox      boolean NOT NULL,
  member_id    uuid NOT NULL REFERENCES loyalty_members(member_id),
  action_type  text NOT NULL,
  -- '' for an action limited to once per member; else the scope (e.g. the reviewed reservation's id).
  scope_key    text NOT NULL,
  entry_id     uuid NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (member_id, action_type, scope_key)
);

SELECT gep_enable_tenant_isolation(ARRAY['loyalty_action_claims']);
