import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { randomUUID } from "node:crypto"
import postgres from "postgres"
import { inject } from "vitest"
import { connect, Database, type Tx, withTenant } from "../../../core/db/Database.ts"
import { readAsTenant } from "../../../core/db/readAsTenant.ts"
import {
  DatabaseError, databaseFailure, DatabaseUnavailable, isInfrastructureFailure, isLockTimeout, isRetryable
} from "../../../core/db/DatabaseFailure.ts"

const failing = (code: string) => Object.assign(new Error(`failed with ${code}`), { code })

/** A database nothing listens for: postgres.js is refused at once (ECONNREFUSED). */
const nowhere = "postgres://postgres@127.0.0.1:1/gep"

const withDatabase = <A, E>(url: string, f: (db: Database["Service"]) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(Database.make(url, 1), f))

describe("DatabaseFailure: classification by SQLSTATE or socket code", () => {
  it("the database or the network away is DatabaseUnavailable; anything else a DatabaseError, retryable or not", () => {
    for (const code of ["08006", "57P01", "53300", "ECONNREFUSED", "CONNECTION_CLOSED", "CONNECT_TIMEOUT"]) {
      expect(isInfrastructureFailure(failing(code))).toBe(true)
      expect(databaseFailure(failing(code))).toBeInstanceOf(DatabaseUnavailable)
    }
    for (const code of ["40001", "40P01", "23505"]) {
      expect(isRetryable(failing(code))).toBe(true)
      expect(databaseFailure(failing(code))).toMatchObject({ _tag: "DatabaseError", code, retryable: true })
    }
    expect(databaseFailure(failing("42P01"))).toMatchObject({ _tag: "DatabaseError", code: "42P01", retryable: false })
    expect(databaseFailure(new Error("connection refused"))).toMatchObject({ _tag: "DatabaseError", retryable: false })
    expect(isLockTimeout(failing("55P03"))).toBe(true)
    const classified = databaseFailure(failing("08006"))
    expect(databaseFailure(classified)).toBe(classified)
  })
})

describe("Database service boundary", () => {
  it.effect("attempt fails with a typed DatabaseFailure: unavailable when nothing answers, an error for a bad statement", () =>
    Effect.gen(function*() {
      const away = yield* withDatabase(nowhere, (db) => db.attempt((sql) => sql`SELECT 1`)).pipe(Effect.flip)
      expect(away).toBeInstanceOf(DatabaseUnavailable)
      expect(away.code).toBe("ECONNREFUSED")
      const bad = yield* withDatabase(inject("databaseUrl"), (db) => db.attemptTransaction((tx) => tx`SELECT * FROM no_such_table`)).pipe(Effect.flip)
      expect(bad).toBeInstanceOf(DatabaseError)
      expect(bad).toMatchObject({ code: "42P01", retryable: false })
      expect(yield* withDatabase(inject("databaseUrl"), (db) => db.attempt((sql) => sql`SELECT 1 AS one`))).toEqual([{ one: 1 }])
    }))

  it.effect("query dies with the typed failure, so the error shape at the edge tells 503 from 500", () =>
    Effect.gen(function*() {
      const exit = yield* withDatabase(nowhere, (db) => db.query((sql) => sql`SELECT 1`)).pipe(Effect.exit)
      expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.squash(exit.cause)).toBeInstanceOf(DatabaseUnavailable)
      const tx = yield* withDatabase(inject("databaseUrl"), (db) => db.transaction((tx) => tx`SELECT * FROM no_such_table`)).pipe(Effect.exit)
      if (Exit.isFailure(tx)) expect(Cause.squash(tx.cause)).toBeInstanceOf(DatabaseError)
      else expect.unreachable()
    }))
})

/** One pooled connection to the run's database, for the test's body; ended after it. */
const onOneConnection = async (make: (url: string) => postgres.Sql, body: (sql: postgres.Sql) => Promise<void>) => {
  const sql = make(inject("databaseUrl"))
  try {
    await body(sql)
  } finally {
    await sql.end()
  }
}
const plainPool = (url: string) => postgres(url, { max: 1, onnotice: () => {} })

describe("withTenant", () => {
  it("runs the callback's first statements as the tenant, sent in the round trip that sets it", () =>
    onOneConnection(plainPool, async (sql) => {
      const tenantId = randomUUID()
      const who = (tx: Tx) => tx`SELECT current_user AS role, current_setting('app.tenant_id', true) AS tenant`
      // The callback's own statements are awaited before anything else of the transaction: eager ones, in parallel.
      const seen = await withTenant(sql, tenantId, async (tx) => {
        const [[first], [second]] = await Promise.all([who(tx), who(tx)])
        return [first, second]
      })
      expect(seen).toEqual([{ role: "gep_app", tenant: tenantId }, { role: "gep_app", tenant: tenantId }])
      // And none of it outlives the transaction on the pooled connection.
      const [after] = await sql`SELECT current_user AS role, coalesce(current_setting('app.tenant_id', true), '') AS tenant`
      expect(after).toMatchObject({ tenant: "" })
      expect(after!.role).not.toBe("gep_app")
    }))
})

describe("readAsTenant", () => {
  it("runs its statements as the tenant in one transaction, answers in order, and leaves the connection idle after a failure", () =>
    onOneConnection(plainPool, async (sql) => {
      const tenantId = randomUUID()
      const [[who], [n]] = await readAsTenant(sql, tenantId, (tx) => [
        tx`SELECT current_user AS role, current_setting('app.tenant_id', true) AS tenant`,
        tx`SELECT 2 AS n`
      ])
      expect(who).toMatchObject({ role: "gep_app", tenant: tenantId })
      expect(n).toEqual({ n: 2 })
      // Read only: a write is refused, and the statements after a failure fail with it; the first failure is the answer.
      const failed = await readAsTenant(sql, tenantId, (tx) => [tx`SELECT 1`, tx`CREATE TEMP TABLE t (x int)`, tx`SELECT 3`]).catch((e) => e)
      expect(failed).toMatchObject({ code: "25006" })
      // The one pooled connection is back, outside any transaction and tenant.
      const [after] = await sql`SELECT current_user AS role, coalesce(current_setting('app.tenant_id', true), '') AS tenant`
      expect(after!.tenant).toBe("")
      expect(after!.role).not.toBe("gep_app")
      expect(await sql`SAVEPOINT outside`.catch((e) => e)).toMatchObject({ code: "25P01" }) // no transaction block open
      // Nor after a read whose statements could not even be built.
      const unbuilt = await readAsTenant(sql, tenantId, () => {
        throw new Error("no statements")
      }).catch((e) => e)
      expect(unbuilt).toMatchObject({ message: "no statements" })
      expect(await sql`SAVEPOINT outside`.catch((e) => e)).toMatchObject({ code: "25P01" })
    }))
})

describe("connect", () => {
  it("opens sessions without JIT (short statements; a plan costed on stale statistics must not be compiled each run)", () =>
    onOneConnection((url) => connect(url, 1), async (sql) => {
      expect(await sql`SHOW jit`).toEqual([{ jit: "off" }])
    }))
})
