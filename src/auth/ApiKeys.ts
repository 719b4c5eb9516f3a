import { Context, Effect, Layer } from "effect"
import type { Principal } from "../../schemas/api.ts"
import { Database } from "../../core/db/Database.ts"
import { hashKey, looksLikeKey } from "./keys.ts"

/** How long a key lookup is reused; bounds how long a revoked key keeps working on one ingress. */
const CACHE_MS = 5_000
const CACHE_MAX = 10_000

export class ApiKeys extends Context.Service<ApiKeys, {
  /**
   * The principal of an active key, or undefined for a malformed, unknown or revoked key. The database failing is a
   * defect on purpose: the authentication middleware can do nothing with it but answer, and the error shape answers a
   * `DatabaseUnavailable` defect with 503 + Retry-After (anything else with 500).
   */
  readonly authenticate: (key: string) => Effect.Effect<Principal | undefined>
}>()("app/auth/ApiKeys") {
  static readonly layer = Layer.effect(ApiKeys, Effect.gen(function*() {
    const db = yield* Database
    const cache = new Map<string, { principal: Principal | undefined; until: number }>()

    const authenticate = Effect.fn("ApiKeys.authenticate")(function*(key: string) {
      if (!looksLikeKey(key)) return undefined
      const hash = hashKey(key)
      const cacheKey = hash.toString("base64")
      const hit = cache.get(cacheKey)
      if (hit && hit.until > Date.now()) return hit.principal
      const rows = yield* db.query((sql) => sql`
        SELECT id, tenant_id, sandbox, scopes, rate_limit_per_minute FROM api_keys
        WHERE key_hash = ${hash} AND revoked_at IS NULL`)
      const row = rows[0]
      const principal: Principal | undefined = row && {
        key_id: row.id as string,
        tenant_id: row.tenant_id as string,
        sandbox: row.sandbox as boolean,
        scopes: row.scopes as Array<string>,
        rate_limit_per_minute: (row.rate_limit_per_minute as number | null) ?? null
      }
      if (cache.size >= CACHE_MAX) cache.clear()
      cache.set(cacheKey, { principal, until: Date.now() + CACHE_MS })
      return principal
    })
    return ApiKeys.of({ authenticate })
  }))
}
