import { Clock, Context, Effect, Layer, Schedule } from "effect"
import { Database, withTenant } from "../../../core/db/Database.ts"
import type { TenantScope } from "../../../core/TenantScope.ts"

/** How long an answer is replayed; older rows are invisible and swept. */
export const RETENTION_MS = 24 * 60 * 60 * 1000
/** How long a running request holds its key before a retry of the same request may take it over (its ingress died). */
export const LEASE_MS = 60_000
const SWEEP_BATCH = 1_000

/** An answer as it left: status, the headers worth replaying, the body's bytes. */
export interface StoredAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** What a key holds for a request: now the request's (run it), a decided answer, or another request still running. */
export type Claim =
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "Answered"; readonly sameRequest: boolean; readonly answer: StoredAnswer }
  | { readonly _tag: "Running"; readonly sameRequest: boolean }

export interface KeyOf {
  readonly scope: TenantScope
  readonly key: string
  /** The request holding the key (a random id per request). */
  readonly owner: string
}

/**
 * The stored answers of Idempotency-Key requests (table idempotency_keys, migration 028), read and written as the
 * account (row-level security); the layer also removes rows past 24 h, in batches, every ten minutes.
 */
export class IdempotencyStore extends Context.Service<IdempotencyStore, {
  /** Takes the key for this request unless it holds an answer or a running request (24 h old rows count as free). */
  readonly claim: (k: KeyOf, requestHash: Buffer) => Effect.Effect<Claim>
  /** The decided answer of the request holding the key. */
  readonly complete: (k: KeyOf, answer: StoredAnswer) => Effect.Effect<void>
  /** The key given back (no decided answer: a retry runs again). */
  readonly release: (k: KeyOf) => Effect.Effect<void>
  /** Removes rows older than the retention, `SWEEP_BATCH` at a time; answers how many. */
  readonly sweep: Effect.Effect<number>
}>()("app/http/IdempotencyStore") {
  static readonly make = Effect.gen(function*() {
    const db = yield* Database
    const now = Effect.map(Clock.currentTimeMillis, (t) => new Date(t))

    const claimOnce = (k: KeyOf, hash: Buffer) => Effect.flatMap(now, (at) => db.query((sql) => withTenant(sql, k.scope.tenant_id, async (tx) => {
      const expired = new Date(at.getTime() - RETENTION_MS)
      const taken = await tx`
        INSERT INTO idempotency_keys (tenant_id, sandbox, key, request_hash, owner, locked_until, created_at)
        VALUES (${k.scope.tenant_id}, ${k.scope.sandbox}, ${k.key}, ${hash}, ${k.owner}, ${new Date(at.getTime() + LEASE_MS)}, ${at})
        ON CONFLICT (tenant_id, sandbox, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, owner = EXCLUDED.owner,
          locked_until = EXCLUDED.locked_until, created_at = EXCLUDED.created_at, status = NULL, headers = NULL, body = NULL
        WHERE idempotency_keys.created_at <= ${expired}
          OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= ${at} AND idempotency_keys.request_hash = EXCLUDED.request_hash)
        RETURNING 1`
      if (taken.length > 0) return { _tag: "Claimed" } as const
      const [row] = await tx`
        SELECT request_hash, status, headers, body FROM idempotency_keys
        WHERE tenant_id = ${k.scope.tenant_id} AND sandbox = ${k.scope.sandbox} AND key = ${k.key} AND created_at > ${expired}`
      if (row === undefined) return undefined
      const sameRequest = hash.equals(row.request_hash as Buffer)
      return row.status === null
        ? { _tag: "Running", sameRequest } as const
        : { _tag: "Answered", sameRequest, answer: { status: row.status as number, headers: row.headers as Record<string, string>, body: new Uint8Array(row.body as Buffer) } } as const
    })))

    // A row removed between the two statements (its request gave the key back): claim again.
    const claim = Effect.fn("IdempotencyStore.claim")(function*(k: KeyOf, hash: Buffer) {
      for (;;) {
        const result = yield* claimOnce(k, hash)
        if (result !== undefined) return result as Claim
      }
    })

    const complete = Effect.fn("IdempotencyStore.complete")(function*(k: KeyOf, answer: StoredAnswer) {
      yield* db.query((sql) => withTenant(sql, k.scope.tenant_id, (tx) => tx`
        UPDATE idempotency_keys SET status = ${answer.status}, headers = ${tx.json(answer.headers as Record<string, string>)},
          body = ${Buffer.from(answer.body)}, locked_until = NULL
        WHERE tenant_id = ${k.scope.tenant_id} AND sandbox = ${k.scope.sandbox} AND key = ${k.key} AND owner = ${k.owner}`))
    })

    const release = Effect.fn("IdempotencyStore.release")(function*(k: KeyOf) {
      yield* db.query((sql) => withTenant(sql, k.scope.tenant_id, (tx) => tx`
        DELETE FROM idempotency_keys
        WHERE tenant_id = ${k.scope.tenant_id} AND sandbox = ${k.scope.sandbox} AND key = ${k.key} AND owner = ${k.owner} AND status IS NULL`))
    })

    // The owner's role (no tenant): one sweep serves every account. Bounded batches keep each statement short.
    const sweep = Effect.gen(function*() {
      const cutoff = new Date((yield* now).getTime() - RETENTION_MS)
      let removed = 0
      for (;;) {
        const rows = yield* db.query((sql) => sql`
          DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(
            SELECT ctid FROM idempotency_keys WHERE created_at <= ${cutoff} LIMIT ${SWEEP_BATCH}))`)
        removed += rows.count
        if (rows.count < SWEEP_BATCH) return removed
      }
    }).pipe(Effect.withSpan("IdempotencyStore.sweep"))

    return IdempotencyStore.of({ claim, complete, release, sweep })
  })

  /** The store, and its sweep every ten minutes for as long as the layer lives (a failed sweep is logged and retried then). */
  static readonly layer = Layer.effect(IdempotencyStore, Effect.gen(function*() {
    const store = yield* IdempotencyStore.make
    yield* store.sweep.pipe(
      Effect.catchCause((cause) => Effect.logWarning("idempotency sweep failed", cause)),
      Effect.repeat(Schedule.spaced("10 minutes")),
      Effect.forkScoped
    )
    return store
  }))
}
