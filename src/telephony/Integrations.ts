import { Clock, Config, Context, Effect, Layer } from "effect"
import { credentialHash, randomCredential } from "../../core/credentials.ts"
import type { TelephonyIntegration } from "../../schemas/apiKey.ts"
import type { Integration } from "../../schemas/security.ts"
import { Database, type Sql, type Tx } from "../../core/db/Database.ts"
import { exactTime } from "../http/cursor.ts"
import type { PageRequest } from "../http/paging.ts"
import { CURSOR_COLUMNS, newestFirst } from "../tenancy/listing.ts"

const PREFIX = "svccti_"
/** Like API keys' (GEP_API_KEY_CACHE_MS): how long a token revoked on another ingress keeps working here. */
const CacheMs = Config.Int("GEP_API_KEY_CACHE_MS").pipe(Config.withDefault(5_000))

export const generateCtiToken = (): string => randomCredential(PREFIX)
const hash = credentialHash

/** Telephony integrations: one webhook token per tenant + provider, stored as a hash. */
export class Integrations extends Context.Service<Integrations, {
  readonly authenticate: (token: string) => Effect.Effect<Integration | undefined>
  /** Drops what this process cached about an integration (it was just revoked here). */
  readonly forget: (integrationId: string) => Effect.Effect<void>
}>()("app/telephony/Integrations") {
  static readonly layer = Layer.effect(Integrations, Effect.gen(function*() {
    const { sql } = yield* Database
    const cacheMs = yield* CacheMs
    const cache = new Map<string, { value: Integration | undefined; until: number }>()
    const authenticate = Effect.fn("Integrations.authenticate")(function*(token: string) {
      if (!/^svccti_[0-9A-Za-z]{20,100}$/.test(token)) return undefined
      const now = yield* Clock.currentTimeMillis
      const h = hash(token)
      const key = h.toString("base64")
      const hit = cache.get(key)
      if (hit && hit.until > now) return hit.value
      const [row] = yield* Effect.promise(() => sql`
        SELECT id, tenant_id, provider FROM cti_integrations WHERE token_hash = ${h} AND revoked_at IS NULL`)
      const value: Integration | undefined = row && { integration_id: row.id as string, tenant_id: row.tenant_id as string, provider: row.provider as string }
      if (cache.size > 10_000) cache.clear()
      cache.set(key, { value, until: now + cacheMs })
      return value
    })
    const forget = Effect.fn("Integrations.forget")(function*(integrationId: string) {
      for (const [key, entry] of cache) if (entry.value?.integration_id === integrationId) cache.delete(key)
    })
    return Integrations.of({ authenticate, forget })
  }))
}

// The integrations of one account, for the API (under row-level security) and the CLI alike; no read returns a token.

const COLUMNS = `id, provider, ${exactTime("created_at")} AS created_at,
  CASE WHEN revoked_at IS NULL THEN NULL ELSE ${exactTime("revoked_at")} END AS revoked_at,
  ${CURSOR_COLUMNS}`

const integrationOf = (r: Record<string, unknown>): TelephonyIntegration => ({
  integration_id: r.id as string,
  provider: r.provider as string,
  created_at: r.created_at as string,
  revoked: r.revoked_at !== null,
  revoked_at: (r.revoked_at as string | null) ?? null
})

/** Creates an integration and returns it with its token (shown once). */
export const createIntegration = async (sql: Sql | Tx, tenantId: string, provider: string) => {
  const token = generateCtiToken()
  const [row] = await sql.unsafe(
    `INSERT INTO cti_integrations (tenant_id, provider, token_hash) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
    [tenantId, provider, hash(token)]
  )
  return { ...integrationOf(row!), token }
}

/** The account's integrations, revoked ones included, newest first. */
export const listIntegrations = async (tx: Tx, tenantId: string, page: PageRequest) => {
  return newestFirst(tx, { table: "cti_integrations", columns: COLUMNS, tenantId }, page, "integrations", integrationOf)
}

/** Revokes an integration's token (again: a no-op keeping the first time); undefined when the account has none such. */
export const revokeIntegration = async (tx: Tx, tenantId: string, integrationId: string) => {
  const [row] = await tx.unsafe(
    `UPDATE cti_integrations SET revoked_at = coalesce(revoked_at, now())
     WHERE tenant_id = $1 AND id = $2::uuid RETURNING ${COLUMNS}`,
    [tenantId, integrationId]
  )
  return row && integrationOf(row)
}
