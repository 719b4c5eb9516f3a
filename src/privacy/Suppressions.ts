import { Cache, Config, Context, Effect, Exit, Layer } from "effect"
import { Database, withTenant } from "../../core/db/Database.ts"
import { hashesParameter } from "../../core/privacy/hashParameter.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import type { Identifier } from "../../core/privacy/identifier.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

/**
 * How long an ingress reuses what it read of a tenant's suppressions (GEP_SUPPRESSION_CACHE_MS, default 2 s): a
 * suppression made through another process (another ingress replica, the CLI, a runner) is effective here at most
 * this long (plus one read) after it committed. The issue promises every ingress replica within 5 s of the 202, so
 * the setting must stay below SUPPRESSION_CACHE_MAX_MS; 0 reads on every request. A request's drain waits it out too.
 */
export const SuppressionCacheMs = Config.Int("GEP_SUPPRESSION_CACHE_MS").pipe(Config.withDefault(2_000))
export const SUPPRESSION_CACHE_MAX_MS = 4_999

/** Tenant scopes whose suppressions a process holds at once (least recently used ones make room). */
const SCOPES_MAX = 1_000
/**
 * Hashes held per scope. A scope with more is asked on each request instead (one indexed statement for all of the
 * request's identifiers), so what the cache holds is bounded: SCOPES_MAX × HELD_MAX × 32 bytes = 32 MB at worst.
 */
const HELD_MAX = 1_024
const HASH_BYTES = 32

/**
 * What a process knows of one scope's suppressions: every hash, sorted (one buffer of HASH_BYTES each, searched by
 * bisection, so a scope costs one object however many it holds), or that there are too many to hold.
 */
type Snapshot = { readonly kind: "held"; readonly sorted: Buffer; readonly count: number } | { readonly kind: "many" }

const heldContains = (s: Extract<Snapshot, { kind: "held" }>, hash: Buffer): boolean => {
  let lo = 0
  let hi = s.count - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const c = Buffer.compare(s.sorted.subarray(mid * HASH_BYTES, (mid + 1) * HASH_BYTES), hash)
    if (c === 0) return true
    if (c < 0) lo = mid + 1
    else hi = mid - 1
  }
  return false
}

const keyOf = (scope: TenantScope) => `${scope.tenant_id}:${scope.sandbox}`

export interface SuppressionsShape {
  /**
   * The values among `identifiers` (normalised: core/privacy/identifier.ts) that are suppressed in the scope. At steady
   * state no statement: the scope's hashes are read at most once per GEP_SUPPRESSION_CACHE_MS per process (shared by
   * concurrent requests), unless the scope has more than HELD_MAX (then one statement per call). The database
   * failing is a defect on purpose (the error shape answers it 503 + Retry-After): a suppression that cannot be
   * checked must not be let through.
   */
  readonly suppressed: (scope: TenantScope, identifiers: ReadonlyArray<Identifier>) => Effect.Effect<ReadonlySet<string>>
  /**
   * Whether the scope has any suppression at all: most accounts have none, and their requests then skip normalising and
   * hashing the people they name (an ingress's phone parsing is not free).
   */
  readonly any: (scope: TenantScope) => Effect.Effect<boolean>
  /** Drops what this process holds about the scope (a suppression or its lifting was just written here). */
  readonly forget: (scope: TenantScope) => Effect.Effect<void>
}

/** The ingress's view of `privacy_suppressions` (keyed hashes of suppressed identifiers; see migration 037). */
export class Suppressions extends Context.Service<Suppressions, SuppressionsShape>()("app/privacy/Suppressions") {
  static readonly layer = Layer.effect(Suppressions, Effect.gen(function*() {
    const db = yield* Database
    const key = yield* PrivacyKey
    const cacheMs = yield* SuppressionCacheMs
    if (!(cacheMs >= 0 && cacheMs <= SUPPRESSION_CACHE_MAX_MS)) {
      return yield* Effect.die(new Error(`GEP_SUPPRESSION_CACHE_MS must be 0 to ${SUPPRESSION_CACHE_MAX_MS} (suppressions are promised effective within 5 s)`))
    }

    const load = (scopeKey: string) => {
      const [tenantId, sandbox] = scopeKey.split(":") as [string, string]
      // Read in index order (the primary key is tenant, sandbox, hash): bytea sorts as Buffer.compare does.
      return db.query((sql) => withTenant(sql, tenantId, (tx) => tx<Array<{ id_hash: Buffer }>>`
        SELECT id_hash FROM privacy_suppressions WHERE tenant_id = ${tenantId} AND sandbox = ${sandbox === "true"}
        ORDER BY id_hash LIMIT ${HELD_MAX + 1}`)).pipe(Effect.map((rows): Snapshot => {
        const hashes = rows.map((r) => r.id_hash).filter((h) => h.length === HASH_BYTES)
        return rows.length > HELD_MAX ? { kind: "many" } : { kind: "held", sorted: Buffer.concat(hashes), count: hashes.length }
      }))
    }
    // A failed read is not kept: the next request reads again.
    const snapshots = yield* Cache.makeWith(load, {
      capacity: SCOPES_MAX,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? cacheMs : 0)
    })

    const any = Effect.fn("Suppressions.any")(function*(scope: TenantScope) {
      const snapshot = yield* Cache.get(snapshots, keyOf(scope))
      return snapshot.kind === "many" || snapshot.count > 0
    })

    const suppressed = Effect.fn("Suppressions.suppressed")(function*(scope: TenantScope, identifiers: ReadonlyArray<Identifier>) {
      if (identifiers.length === 0) return new Set<string>()
      const snapshot = yield* Cache.get(snapshots, keyOf(scope))
      if (snapshot.kind === "held" && snapshot.count === 0) return new Set<string>()
      const hashed = identifiers.map((identifier) => ({ identifier, hash: key.hash(scope.tenant_id, identifier) }))
      if (snapshot.kind === "held") return new Set(hashed.filter((h) => heldContains(snapshot, h.hash)).map((h) => h.identifier.value))
      const found = yield* db.query((sql) => withTenant(sql, scope.tenant_id, (tx) => tx<Array<{ id_hash: Buffer }>>`
        SELECT id_hash FROM privacy_suppressions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
          AND id_hash = ANY(${hashesParameter(tx, hashed.map((h) => h.hash))})`))
      return new Set(hashed.filter((h) => found.some((f) => f.id_hash.equals(h.hash))).map((h) => h.identifier.value))
    })

    const forget = Effect.fn("Suppressions.forget")(function*(scope: TenantScope) {
      yield* Cache.invalidate(snapshots, keyOf(scope))
    })
    return Suppressions.of({ suppressed, any, forget })
  }))
}
