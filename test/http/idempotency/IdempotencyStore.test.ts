import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import postgres from "postgres"
import { Database } from "../../../core/db/Database.ts"
import { IdempotencyStore, type KeyOf } from "../../../src/http/idempotency/IdempotencyStore.ts"
import { ownDatabase } from "../../support/ownDatabase.ts"

/**
 * The store on the real database, its time on the test clock (which starts at 1970), in a database of its own: the
 * sweep serves every account, so a platform another file starts (real clock, 2026) would sweep these 1970 rows away
 * mid-test, and these sweeps would take another file's rows.
 */

let database: Awaited<ReturnType<typeof ownDatabase>>
let sql: postgres.Sql
beforeAll(async () => {
  database = await ownDatabase("idempotency")
  sql = postgres(database.url, { max: 2, onnotice: () => {} })
}, 60_000)
afterAll(async () => {
  await sql.end()
  await database.drop()
})

const DatabaseLive = Layer.effect(Database, Effect.suspend(() => Database.make(database.url, 2)))
const HOUR = 60 * 60 * 1000
const hash = (s: string) => Buffer.from(s.padEnd(32, "."))
const rowsOf = async (tenantId: string) =>
  (await sql`SELECT key FROM idempotency_keys WHERE tenant_id = ${tenantId} ORDER BY key`).map((r) => r.key as string)
const row = (tenantId: string, key: string, at: number) => sql`
  INSERT INTO idempotency_keys (tenant_id, sandbox, key, request_hash, owner, status, headers, body, created_at)
  VALUES (${tenantId}, false, ${key}, ${hash(key)}, ${randomUUID()}, 200, '{}', '\\x', ${new Date(at)})`
/** The rows once the sweep the clock just set off has run (its statements take real time). */
const rowsSettleTo = (tenantId: string, expected: ReadonlyArray<string>) => Effect.promise(async () => {
  for (let i = 0; i < 100; i++) {
    const rows = await rowsOf(tenantId)
    if (JSON.stringify(rows) === JSON.stringify(expected)) return rows
    await new Promise((r) => setTimeout(r, 50))
  }
  return rowsOf(tenantId)
})

describe("IdempotencyStore", () => {
  it.effect("claims, waits on a running request, answers a decided one, and frees a key after 24 h", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore.make
      const scope = { tenant_id: randomUUID(), sandbox: false }
      const first: KeyOf = { scope, key: "k", owner: randomUUID() }
      expect((yield* store.claim(first, hash("a")))._tag).toBe("Claimed")
      expect(yield* store.claim({ ...first, owner: randomUUID() }, hash("a"))).toEqual({ _tag: "Running", sameRequest: true })
      expect(yield* store.claim({ ...first, owner: randomUUID() }, hash("b"))).toEqual({ _tag: "Running", sameRequest: false })
      // The other mode is another key space.
      expect((yield* store.claim({ ...first, scope: { ...scope, sandbox: true }, owner: randomUUID() }, hash("b")))._tag).toBe("Claimed")
      const answer = { status: 201, headers: { "content-type": "application/json" }, body: new TextEncoder().encode("{\"ok\":1}") }
      yield* store.complete(first, answer)
      expect(yield* store.claim({ ...first, owner: randomUUID() }, hash("a"))).toEqual({ _tag: "Answered", sameRequest: true, answer })
      expect((yield* store.claim({ ...first, owner: randomUUID() }, hash("b")))).toMatchObject({ _tag: "Answered", sameRequest: false })
      yield* TestClock.adjust(24 * HOUR)
      expect((yield* store.claim({ ...first, owner: randomUUID() }, hash("b")))._tag).toBe("Claimed")
    }).pipe(Effect.provide(DatabaseLive)))

  it.effect("a request given back frees its key; one whose ingress died is taken over by its retry after the lease", () =>
    Effect.gen(function*() {
      const store = yield* IdempotencyStore.make
      const scope = { tenant_id: randomUUID(), sandbox: false }
      const key: KeyOf = { scope, key: "k", owner: randomUUID() }
      yield* store.claim(key, hash("a"))
      yield* store.release(key)
      const second = { ...key, owner: randomUUID() }
      expect((yield* store.claim(second, hash("a")))._tag).toBe("Claimed")
      yield* TestClock.adjust(61_000)
      expect((yield* store.claim({ ...key, owner: randomUUID() }, hash("b")))._tag).toBe("Running")
      expect((yield* store.claim({ ...key, owner: randomUUID() }, hash("a")))._tag).toBe("Claimed")
    }).pipe(Effect.provide(DatabaseLive)))

  it.effect("a sweep removes the rows past 24 h by the clock, in bounded batches", () =>
    Effect.gen(function*() {
      const tenantId = randomUUID()
      yield* Effect.promise(() => sql`
        INSERT INTO idempotency_keys (tenant_id, sandbox, key, request_hash, owner, status, headers, body, created_at)
        SELECT ${tenantId}, false, 'old-' || n, '\\x00', gen_random_uuid(), 200, '{}', '\\x', to_timestamp(0)
        FROM generate_series(1, 2500) AS n`)
      yield* Effect.promise(() => row(tenantId, "new", 12 * HOUR))
      const store = yield* IdempotencyStore.make
      expect(yield* store.sweep).toBe(0)
      yield* TestClock.adjust(24 * HOUR)
      expect(yield* store.sweep).toBeGreaterThanOrEqual(2500)
      expect(yield* Effect.promise(() => rowsOf(tenantId))).toEqual(["new"])
    }).pipe(Effect.provide(DatabaseLive)))

  it.effect("the layer sweeps when built and then every ten minutes, on the clock", () =>
    Effect.gen(function*() {
      const tenantId = randomUUID()
      yield* TestClock.adjust(48 * HOUR)
      yield* Effect.promise(() => row(tenantId, "a-at-0h", 0))
      yield* Effect.promise(() => row(tenantId, "b-at-40h", 40 * HOUR))
      yield* Effect.promise(() => row(tenantId, "c-at-24h05", 24 * HOUR + 5 * 60_000))
      yield* Effect.gen(function*() {
        yield* IdempotencyStore
        expect(yield* rowsSettleTo(tenantId, ["b-at-40h", "c-at-24h05"])).toEqual(["b-at-40h", "c-at-24h05"])
        // Ten minutes on, the next sweep (cutoff 24h10) takes c; b stays until 64 h. The clock moves again if the first
        // sweep's fiber had not reached its sleep yet when it moved (its statements take real time).
        let rows: ReadonlyArray<string> = []
        for (let i = 0; i < 20 && rows.length !== 1; i++) {
          yield* TestClock.adjust(10 * 60_000)
          rows = yield* Effect.promise(async () => {
            await new Promise((r) => setTimeout(r, 100))
            return rowsOf(tenantId)
          })
        }
        expect(rows).toEqual(["b-at-40h"])
      }).pipe(Effect.provide(IdempotencyStore.layer))
    }).pipe(Effect.provide(DatabaseLive)))
})
