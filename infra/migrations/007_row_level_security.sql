-- Defence in depth for tenant isolation: actor transactions and tenant-scoped reads run as the role gep_app with
-- the per-transaction setting app.tenant_id; row-level security then hides and refuses every other tenant's rows,
-- even for a query that forgot its tenant filter. Maintenance paths (migrations, CLI, sweepers, leases) keep the
-- owner's role. A later table with a tenant_id column must enable the same policy.
DO $$ BEGIN
  CREATE ROLE gep_app NOLOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;

GRANT USAGE ON SCHEMA public TO gep_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO gep_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO gep_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO gep_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO gep_app;
-- A non-superuser application user needs the membership to SET ROLE gep_app (a superuser has it implicitly).
GRANT gep_app TO CURRENT_USER;

DO $$
DECLARE t text;
BEGIN
  FOR t IN
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables tb ON tb.table_name = c.table_name AND tb.table_schema = c.table_schema
    WHERE c.column_name = 'tenant_id' AND c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid) '
      'WITH CHECK (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::uuid)', t);
  END LOOP;
END $$;
