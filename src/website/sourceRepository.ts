import { randomUUID } from "node:crypto"
import type { Sql, Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { generateWebKey, hashWebKey, type KeyKind, keyPrefix } from "../../core/website/credentials.ts"
import type { SourceView } from "../../schemas/websiteSourceApi.ts"

// Website sources and their keys, in the tenant's scope.

export interface SourceFields {
  readonly name: string
  readonly allowed_origins: ReadonlyArray<string>
  readonly allowed_events: ReadonlyArray<string>
  readonly allowed_hotels: ReadonlyArray<string>
  readonly consent_mode: "honour" | "ignore"
  readonly rate_limit_per_minute: number
  readonly mapping: Record<string, unknown> | null
  readonly enabled: boolean
}

const iso = (d: unknown) => (d as Date).toISOString()

export const present = (row: Record<string, any>, keys: ReadonlyArray<Record<string, any>>, baseUrl: string, token?: string): SourceView => ({
  source_id: row.id,
  name: row.name,
  allowed_origins: row.allowed_origins,
  allowed_events: row.allowed_events,
  allowed_hotels: row.allowed_hotels,
  consent_mode: row.consent_mode,
  signing: row.signing_secret_encrypted !== null,
  rate_limit_per_minute: row.rate_limit_per_minute,
  mapping: row.mapping ?? null,
  enabled: row.enabled && row.deleted_at === null,
  // The token is a secret shown once: afterwards the URL shows its prefix only.
  webhook_url: `${baseUrl}/api/v1/website-events/hooks/${token ?? `${keys.find((k) => k.kind === "webhook")?.prefix ?? "svc_wh_"}…`}`,
  keys: keys.map((k) => ({ key_id: k.id, kind: k.kind, prefix: k.prefix, created_at: iso(k.created_at) })),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at)
})

export const insertKey = async (tx: Tx | Sql, scope: TenantScope, sourceId: string, kind: KeyKind) => {
  const key = generateWebKey(kind)
  const id = randomUUID()
  const [row] = await tx`
    INSERT INTO website_source_keys (id, source_id, tenant_id, sandbox, kind, key_hash, prefix)
    VALUES (${id}, ${sourceId}, ${scope.tenant_id}, ${scope.sandbox}, ${kind}, ${hashWebKey(key)}, ${keyPrefix(key)})
    RETURNING id, kind, prefix, created_at`
  return { key, row: row! }
}

export const insertSource = (tx: Tx, scope: TenantScope, id: string, f: SourceFields, secret: Buffer | null) =>
  tx`
    INSERT INTO website_sources (id, tenant_id, sandbox, name, allowed_origins, allowed_events, allowed_hotels, consent_mode,
      rate_limit_per_minute, mapping, signing_secret_encrypted)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${f.name}, ${f.allowed_origins as Array<string>}, ${f.allowed_events as Array<string>},
      ${f.allowed_hotels as Array<string>}::uuid[], ${f.consent_mode}, ${f.rate_limit_per_minute},
      ${f.mapping === null ? null : tx.json(f.mapping as never)}, ${secret})
    RETURNING *`

export const findSource = async (sql: Sql, scope: TenantScope, id: string) => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined
  const [row] = await sql`SELECT * FROM website_sources WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND deleted_at IS NULL`
  return row
}

export const liveKeys = (sql: Sql, sourceId: string) =>
  sql`SELECT id, kind, prefix, created_at FROM website_source_keys WHERE source_id = ${sourceId} AND revoked_at IS NULL ORDER BY created_at, id`

export const listSources = (sql: Sql, scope: TenantScope) =>
  sql`SELECT * FROM website_sources WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND deleted_at IS NULL
    ORDER BY created_at DESC, id DESC LIMIT 500`

export const updateSource = async (sql: Sql, id: string, f: SourceFields) => {
  const [row] = await sql`
    UPDATE website_sources SET name = ${f.name}, allowed_origins = ${f.allowed_origins as Array<string>},
      allowed_events = ${f.allowed_events as Array<string>}, allowed_hotels = ${f.allowed_hotels as Array<string>}::uuid[],
      consent_mode = ${f.consent_mode}, rate_limit_per_minute = ${f.rate_limit_per_minute},
      mapping = ${f.mapping === null ? null : sql.json(f.mapping as never)}, enabled = ${f.enabled}, updated_at = now()
    WHERE id = ${id} AND deleted_at IS NULL RETURNING *`
  return row
}

/** A deleted source keeps its rows (the delivery log, stored events) but its credentials stop working. */
export const deleteSource = async (sql: Sql, id: string) => {
  const [row] = await sql`UPDATE website_sources SET deleted_at = now(), enabled = false, updated_at = now() WHERE id = ${id} AND deleted_at IS NULL RETURNING *`
  return row
}
