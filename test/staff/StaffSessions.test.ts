import { afterAll, describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { randomUUID } from "node:crypto"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { StaffSessions } from "../../src/staff/StaffSessions.ts"
import { testConfig, testSql } from "../support/platform.ts"

// Session expiry on the service's clock (TestClock): 12 hours idle, sliding with each use, and 7 days at most.

const sql = testSql()
afterAll(() => sql.end())

const Sessions = () => StaffSessions.layer.pipe(
  Layer.provideMerge(Database.layer),
  Layer.provide(Layer.succeed(AppConfig, AppConfig.of(testConfig("staff_sessions", { dbPoolSize: 2 }))))
)
const HOUR = 60 * 60_000

/** A staff member of a tenant of their own, and a session of theirs opened now (on the test clock). */
const opened = Effect.gen(function*() {
  yield* TestClock.setTime(Date.now())
  const tenantId = randomUUID()
  const staffId = randomUUID()
  yield* Effect.promise(() => sql`INSERT INTO staff_accounts (id, tenant_id, email, role) VALUES (${staffId}, ${tenantId}, ${`clock.${staffId}@hotelexample.com`}, 'viewer')`)
  const db = yield* Database
  const sessions = yield* StaffSessions
  const now = yield* Clock.currentTimeMillis
  const { token } = yield* db.transaction((tx) => sessions.create(tx, staffId, tenantId, now))
  return { token, sessions, staffId }
})

describe("StaffSessions on the clock", () => {
  it.effect("keeps a session used within 12 hours, and ends one idle for 12 hours", () =>
    Effect.gen(function*() {
      const { token, sessions, staffId } = yield* opened
      yield* TestClock.adjust(11 * HOUR)
      expect(yield* sessions.authenticate(token)).toBeDefined()
      // The use just now moved the idle end: 11 more hours is still within it.
      yield* TestClock.adjust(11 * HOUR)
      const live = yield* sessions.authenticate(token)
      expect(live?.session.role).toBe("viewer")
      yield* TestClock.adjust(12 * HOUR + 60_000)
      expect(yield* sessions.authenticate(token)).toBeUndefined()
      // Ended for good: the row is gone.
      expect(yield* Effect.promise(() => sql`SELECT 1 FROM staff_sessions WHERE staff_id = ${staffId}`)).toHaveLength(0)
    }).pipe(Effect.provide(Sessions())), 60_000)

  it.effect("ends a session 7 days after sign-in however often it is used", () =>
    Effect.gen(function*() {
      const { token, sessions } = yield* opened
      for (let hours = 10; hours < 7 * 24; hours += 10) {
        yield* TestClock.adjust(10 * HOUR)
        expect(yield* sessions.authenticate(token), `after ${hours} h`).toBeDefined()
      }
      yield* TestClock.adjust(10 * HOUR)
      expect(yield* sessions.authenticate(token)).toBeUndefined()
    }).pipe(Effect.provide(Sessions())), 60_000)

  it.effect("answers nothing for a token it never issued or a malformed one", () =>
    Effect.gen(function*() {
      const { sessions } = yield* opened
      expect(yield* sessions.authenticate("gss_" + "x".repeat(43))).toBeUndefined()
      expect(yield* sessions.authenticate("not a token")).toBeUndefined()
    }).pipe(Effect.provide(Sessions())), 60_000)
})
