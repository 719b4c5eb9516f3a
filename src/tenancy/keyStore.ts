import type { Sql, Tx } from "../../core/db/Database.ts"
import type { ApiKey } from "../../schemas/apiKey.ts"
import { displayPrefix, generateKey, hashKey } from "../auth/keys.ts"
import { exactTime } from "../http/cursor.ts"
import type { PageRequest } from "../http/paging.ts"
import { CURSOR_COLUMNS, newestFirst } from "./listing.ts"

// API keys of one account, for the API (under row-level security) and the CLI alike. A key's secret is returned once,
// by `insertKey`; only its SHA-256 and its first characters are stored, and no read returns either hash or secret.

export interface NewKey {
  readonly scopes: ReadonlyArray<string>
  readonly sandbox: boolean
  readonly rate_limit_per_minute?: number | undefined
  readonly name?: string | undefined
}

const COLUMNS = `id, display_prefix, name, scopes, sandbox, rate_limit_per_minute, ${exactTime("created_at")} AS created_at,
  CASE WHEN last_used_at IS NULL THEN NULL ELSE ${exactTime("date_trunc('minute', last_used_at)")} END AS last_used_at,
  CASE WHEN revoked_at IS NULL THEN NULL ELSE ${exactTime("revoked_at")} END AS revoked_at,
  ${CURSOR_COLUMNS}`

const keyOf = (r: Record<string, unknown>): ApiKey => ({
  key_id: r.id as string,
  prefix: r.display_prefix as string,
  name: (r.name as string | null) ?? null,
  scopes: r.scopes as Array<string>,
  mode: r.sandbox ? "sandbox" : "live",
  rate_limit_per_minute: (r.rate_limit_per_minute as number | null) ?? null,
  created_at: r.created_at as string,
  last_used_at: (r.last_used_at as string | null) ?? null,
  revoked: r.revoked_at !== null,
  revoked_at: (r.revoked_at as string | null) ?? null
})

/** A new key: its description and its secret (shown once). */
export const insertKey = async (sql: Sql | Tx, tenantId: string, k: NewKey): Promise<ApiKey & { readonly key: string }> => {
  const key = generateKey(k.sandbox)
  const [row] = await sql.unsafe(
    `INSERT INTO api_keys (tenant_id, sandbox, key_hash, display_prefix, scopes, rate_limit_per_minute, name)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [tenantId, k.sandbox, hashKey(key), displayPrefix(key), k.scopes as Array<string>, k.rate_limit_per_minute ?? null, k.name ?? null]
  )
  return { ...keyOf(row!), key }
}

/** The account's keys, both modes, revoked ones included, newest first. */
export const listKeys = async (tx: Tx, tenantId: string, page: PageRequest) => {
  return newestFirst(tx, { table: "api_keys", columns: COLUMNS, tenantId }, page, "keys", keyOf)
}

/**
 * Revokes a key (again: a no-op keeping the first time); undefined when there is no such key (in `tenantId`'s account
 * when given: the CLI names keys by id alone).
 */
export const revokeKey = async (sql: Sql | Tx, keyId: string, tenantId?: string): Promise<ApiKey | undefined> => {
  const [row] = await sql.unsafe(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
     WHERE id::text = $1 AND ($2::uuid IS NULL OR tenant_id = $2::uuid) RETURNING ${COLUMNS}`,
    [keyId, tenantId ?? null]
  )
  return row && keyOf(row)
}

/**
 * Records that a key authenticated, unless that was already recorded in the last minute (by this process or another):
 * `last_used_at` costs at most one write a minute per key, not one per request.
 */
export const touchKey = (sql: Sql, keyId: string) =>
  sql`UPDATE api_keys SET last_used_at = now()
      WHERE id = ${keyId} AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`
