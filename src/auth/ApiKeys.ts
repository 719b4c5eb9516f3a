import { Clock, Config, Context, Effect, Layer } from "effect"
import type { Principal } from "../../schemas/api.ts"
import { Database } from "../../core/db/Database.ts"
import { touchKey } from "../tenancy/keyStore.ts"
import { hashKey, looksLikeKey } from "./keys.ts"

/**
 * How long a key lookup is reused (GEP_API_KEY_CACHE_MS, default 5 s): bounds how long a key revoked elsewhere (another
 * ingress, the CLI) keeps working on this ingress. A revocation through this ingress's API is forgotten here at once.
 */
const CacheMs = Config.Int("GEP_API_KEY_CACHE_MS").pipe(Config.withDefault(5_000))
const CACHE_MAX = 10_000
/** `last_used_at` is written at most this often per key and process. */
const TOUCH_EVERY_MS = 60_000

export class ApiKeys extends Context.Service<ApiKeys, {
  /**
   * The principal of an active key, or undefined for a malformed, unknown or revoked key. The database failing is a
   * defect on purpose: the authentication middleware can do nothing with it but answer, and the error shape answers a
   * `DatabaseUnavailable` defect with 503 + Retry-After (anything else with 500).
   */
  readonly authenticate: (key: string) => Effect.Effect<Principal | undefined>
  /** Drops what this process cached about a key (it was just revoked here). */
  readonly forget: (keyId: string) => Effect.Effect<void>
}>()("app/auth/ApiKeys") {
  static readonly layer = Layer.effect(ApiKeys, Effect.gen(function*() {
    const db = yield* Database
    const cacheMs = yield* CacheMs
    const scope = yield* Effect.scope
    const cache = new Map<string, { principal: Principal | undefined; until: number }>()
    const touched = new Map<string, number>()

    /** In the background: a failed write of last_used_at never fails or slows the request. */
    const touch = (keyId: string, now: number) => {
      const last = touched.get(keyId)
      if (last !== undefined && now - last < TOUCH_EVERY_MS) return Effect.void
      if (touched.size >= CACHE_MAX) touched.clear()
      touched.set(keyId, now)
      return Effect.forkIn(Effect.ignore(db.attempt((sql) => touchKey(sql, keyId))), scope).pipe(Effect.asVoid)
    }

    const authenticate = Effect.fn("ApiKeys.authenticate")(function*(key: string) {
      if (!looksLikeKey(key)) return undefined
      const now = yield* Clock.currentTimeMillis
      const hash = hashKey(key)
      const cacheKey = hash.toString("base64")
      const hit = cache.get(cacheKey)
      let principal: Principal | undefined
      if (hit && hit.until > now) {
        principal = hit.principal
      } else {
        const rows = yield* db.query((sql) => sql`
          SELECT id, tenant_id, sandbox, scopes, rate_limit_per_minute FROM api_keys
          WHERE key_hash = ${hash} AND revoked_at IS NULL`)
        const row = rows[0]
        principal = row && {
          key_id: row.id as string,
          tenant_id: row.tenant_id as string,
          sandbox: row.sandbox as boolean,
          scopes: row.scopes as Array<string>,
          rate_limit_per_minute: (row.rate_limit_per_minute as number | null) ?? null
        }
        if (cache.size >= CACHE_MAX) cache.clear()
        cache.set(cacheKey, { principal, until: now + cacheMs })
      }
      if (principal) yield* touch(principal.key_id, now)
      return principal
    })

    const forget = Effect.fn("ApiKeys.forget")(function*(keyId: string) {
      for (const [cacheKey, entry] of cache) if (entry.principal?.key_id === keyId) cache.delete(cacheKey)
    })
    return ApiKeys.of({ authenticate, forget })
  }))
}
