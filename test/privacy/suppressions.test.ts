import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { randomUUID } from "node:crypto"
import { inject } from "vitest"
import { Database } from "../../core/db/Database.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import type { Identifier } from "../../core/privacy/identifier.ts"
import { Suppressions } from "../../src/privacy/Suppressions.ts"
import { testSql } from "../support/platform.ts"
import { lift, suppress, usePrivacyKey } from "./support.ts"

// The ingress's view of the suppressions on its own, against PostgreSQL, on the TestClock: cached for
// GEP_SUPPRESSION_CACHE_MS (2 s by default), dropped at once by `forget`, and exact for a scope holding more
// suppressions than it keeps in memory.

const privacy = usePrivacyKey()
const sql = testSql()
afterAll(() => sql.end())

const layer = Suppressions.layer.pipe(
  Layer.provide(Layer.succeed(PrivacyKey, PrivacyKey.of(privacy))),
  Layer.provide(Layer.effect(Database, Database.make(inject("databaseUrl"), 2)))
)

const phone = (n: number): Identifier => ({ kind: "phone", value: `+3460${String(n).padStart(7, "0")}` })

describe("Suppressions", () => {
  it.effect("reuses a scope's suppressions for the cache's time to live; forget drops them at once", () =>
    Effect.gen(function*() {
      const s = yield* Suppressions
      const scope = { tenant_id: randomUUID(), sandbox: false }
      const [a, b] = [phone(1), phone(2)]
      expect(yield* s.suppressed(scope, [a, b])).toEqual(new Set())
      yield* Effect.promise(() => suppress(sql, privacy, scope, a))
      // Another process wrote it: not seen before the time to live has passed.
      yield* TestClock.adjust("1999 millis")
      expect(yield* s.suppressed(scope, [a, b])).toEqual(new Set())
      yield* TestClock.adjust("1 millis")
      expect(yield* s.suppressed(scope, [a, b])).toEqual(new Set([a.value]))
      // Written (lifted) through this process: forgotten at once.
      yield* Effect.promise(() => lift(sql, privacy, scope, a))
      yield* s.forget(scope)
      expect(yield* s.suppressed(scope, [a, b])).toEqual(new Set())
      // The mode is a scope of its own.
      yield* Effect.promise(() => suppress(sql, privacy, { ...scope, sandbox: true }, b))
      expect(yield* s.suppressed({ ...scope, sandbox: true }, [a, b])).toEqual(new Set([b.value]))
      expect(yield* s.suppressed(scope, [a, b])).toEqual(new Set())
    }).pipe(Effect.provide(layer)))

  it.effect("a scope with more suppressions than it holds is asked on each call, and answers exactly", () =>
    Effect.gen(function*() {
      const s = yield* Suppressions
      const scope = { tenant_id: randomUUID(), sandbox: false }
      // 1,100 other hashes (more than the 1,024 a scope keeps in memory), then one of ours.
      yield* Effect.promise(() => sql`INSERT INTO privacy_suppressions (tenant_id, sandbox, id_hash, kind, request_id, key_id)
        SELECT ${scope.tenant_id}, false, decode(md5(i::text) || md5((i + 1)::text), 'hex'), 'phone', ${randomUUID()}, 'test'
        FROM generate_series(1, 1100) AS i`)
      const [a, b] = [phone(3), phone(4)]
      yield* Effect.promise(() => suppress(sql, privacy, scope, a))
      expect(yield* s.suppressed(scope, [a, b])).toEqual(new Set([a.value]))
      // No time to live applies: a suppression written elsewhere is seen by the next call.
      yield* Effect.promise(() => suppress(sql, privacy, scope, b))
      expect(yield* s.suppressed(scope, [a, b])).toEqual(new Set([a.value, b.value]))
    }).pipe(Effect.provide(layer)))
})
