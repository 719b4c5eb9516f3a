import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { requestWarnings } from "../http/unknownFields.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { type FieldDefinition, type FieldDefinitionInput, FieldsRequest } from "../../schemas/fields.ts"
import { Database, type Sql } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { ok } from "../http/answers.ts"

const COLUMNS = `field_key, field_label, field_type, options, description, is_required, is_visible, display_order,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`

/** Definitions are account configuration, not actor-owned state: upserted in one transaction at the ingress. */
const upsertDefinitions = (sql: Sql, p: TenantScope, fields: ReadonlyArray<FieldDefinitionInput>) =>
  sql.begin(async (tx) => {
    const rows = fields.map((f) => ({
      tenant_id: p.tenant_id,
      sandbox: p.sandbox,
      field_key: f.field_key,
      field_label: f.field_label.trim(),
      field_type: f.field_type,
      options: f.field_type === "select" || f.field_type === "multiselect" ? [...f.options!] : null,
      description: f.description ?? null,
      is_required: f.is_required ?? false,
      is_visible: f.is_visible ?? true,
      display_order: f.display_order ?? 0
    }))
    return tx.unsafe<Array<FieldDefinition>>(
      `INSERT INTO custom_field_definitions (tenant_id, sandbox, field_key, field_label, field_type, options, description,
         is_required, is_visible, display_order)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(tenant_id uuid, sandbox boolean, field_key text, field_label text,
         field_type text, options text[], description text, is_required boolean, is_visible boolean, display_order int)
       ON CONFLICT (tenant_id, sandbox, field_key) DO UPDATE SET field_label = EXCLUDED.field_label,
         field_type = EXCLUDED.field_type, options = EXCLUDED.options, description = EXCLUDED.description,
         is_required = EXCLUDED.is_required, is_visible = EXCLUDED.is_visible, display_order = EXCLUDED.display_order,
         updated_at = now()
       RETURNING ${COLUMNS}`,
      [rows as never]
    )
  })

const listDefinitions = (sql: Sql, p: TenantScope) =>
  sql.unsafe<Array<FieldDefinition>>(
    `SELECT ${COLUMNS} FROM custom_field_definitions WHERE tenant_id = $1 AND sandbox = $2 ORDER BY display_order, field_key`,
    [p.tenant_id, p.sandbox]
  )

export const FieldsLive = HttpApiBuilder.group(Api, "fields", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const unknownFields = requestWarnings(FieldsRequest)
    return handlers
      .handle("define", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const rows = yield* db.query((sql) => upsertDefinitions(sql, principal, payload.fields))
          const warnings = yield* unknownFields
          return { success: true as const, data: { fields: [...rows], message: `${rows.length} field definition(s) saved`, warnings } }
        }))
      .handle("list", () =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const rows = yield* db.query((sql) => listDefinitions(sql, principal))
          return ok({ fields: [...rows], next_cursor: null, message: `${rows.length} field definition(s)` })
        }))
  }))
