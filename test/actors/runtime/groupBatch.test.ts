import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Result } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../../../actors/runtime/Actor.ts"
import { groupBatched } from "../../../actors/runtime/groupBatch.ts"
import type { Tx } from "../../../core/db/Database.ts"
import { isDatabaseFailure } from "../../../core/db/DatabaseFailure.ts"
import { testSql } from "../../support/platform.ts"
import { waveService } from "../../support/waves.ts"

// groupBatched against PostgreSQL: the handlers of one wave that ask in the same turn share one statement, each gets
// its own answer, two waves never share one, and a failed statement fails every handler that asked.

const sql = testSql()
afterAll(() => sql.end())

const calls: Array<ReadonlyArray<number>> = []
const double = groupBatched("Test.double", async (tx, _scope, inputs: ReadonlyArray<number>) => {
  calls.push(inputs)
  const rows = await tx<Array<{ n: number }>>`SELECT (x * 2)::int AS n FROM unnest(${inputs as Array<number>}::int[]) WITH ORDINALITY AS u(x, i) ORDER BY i`
  return rows.map((r) => r.n)
})
const failing = groupBatched("Test.failing", async (tx, _scope, _inputs: ReadonlyArray<number>) => {
  await tx`SELECT 1 / 0`
  return []
})

/** A wave's service value: what applyGroup provides to the handlers of one wave. */
const wave = (tx: Tx) => waveService(tx, { tenant_id: randomUUID(), sandbox: false })

/** A handler of the kind the message sender is: a read, a decision, then a write that depends on it. */
const handler = (n: number) => Effect.flatMap(double(n), (twice) => double(twice + 1))

const inTransaction = <A, E>(body: (tx: Tx) => Effect.Effect<A, E>) =>
  sql.begin((tx) => Effect.runPromiseExit(body(tx))) as Promise<Exit.Exit<A, E>>

describe("groupBatched", () => {
  it("runs what a wave's concurrent handlers ask in one statement per step, answering each its own", async () => {
    calls.length = 0
    const exit = await inTransaction((tx) =>
      Effect.forEach([1, 2, 3, 4, 5], handler, { concurrency: "unbounded" }).pipe(Effect.provideService(Actor.GroupTransaction, wave(tx)))
    )
    expect(exit).toEqual(Exit.succeed([6, 10, 14, 18, 22]))
    expect(calls).toEqual([[1, 2, 3, 4, 5], [3, 5, 7, 9, 11]])
  })

  it("never joins two waves' asks, even when they run at once", async () => {
    calls.length = 0
    const exit = await inTransaction((tx) => {
      const one = (inputs: ReadonlyArray<number>) =>
        Effect.forEach(inputs, double, { concurrency: "unbounded" }).pipe(Effect.provideService(Actor.GroupTransaction, wave(tx)))
      return Effect.all([one([1, 2]), one([10, 20])], { concurrency: "unbounded" })
    })
    expect(exit).toEqual(Exit.succeed([[2, 4], [20, 40]]))
    expect([...calls].sort((a, b) => a[0]! - b[0]!)).toEqual([[1, 2], [10, 20]])
  })

  it("fails every handler that asked with a database failure when the statement fails", async () => {
    const results: Array<boolean> = []
    await sql.begin((tx) =>
      Effect.runPromise(
        Effect.forEach([1, 2, 3], (n) => Effect.result(failing(n)), { concurrency: "unbounded" }).pipe(
          Effect.provideService(Actor.GroupTransaction, wave(tx)),
          Effect.map((rs) => rs.forEach((r) => results.push(Result.isFailure(r) && isDatabaseFailure(r.failure))))
        )
      )
    ).catch(() => undefined) // the failed statement aborted the transaction: how it ends is not what is tested
    expect(results).toEqual([true, true, true])
  })
})
