import { expect } from "@effect/vitest"
import { Effect, type Exit } from "effect"
import type postgres from "postgres"
import * as Actor from "../../actors/runtime/Actor.ts"
import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

/** A wave's service value, as applyGroup provides it to the handlers of one wave, on a test transaction. */
export const waveService = (tx: Tx, scope: TenantScope): Actor.GroupTransaction["Service"] => ({
  tx, scope, subject: (kind: string, name: string) => `tests.${kind}.${name}`, target: { namespace: "tests", partitions: 1 }
})

/** Runs `body` as the handlers of one wave run: in a transaction of its own, with the wave's service value. */
export const inWave = <A, E>(sql: postgres.Sql, scope: TenantScope, body: Effect.Effect<A, E, Actor.GroupTransaction>) =>
  sql.begin((tx) => Effect.runPromiseExit(body.pipe(Effect.provideService(Actor.GroupTransaction, waveService(tx as unknown as Tx, scope))))) as
    Promise<Exit.Exit<A, E>>

/**
 * A wave statement's answers to one wave holding every ask, and to one wave per ask: equal (the one-ask case is the
 * statement as a lone envelope runs it), and successful. The answers, in order.
 */
export const sameEitherWay = async <I, O>(
  sql: postgres.Sql, scope: TenantScope, ask: (input: I) => Effect.Effect<O, unknown, Actor.GroupTransaction>, inputs: ReadonlyArray<I>
) => {
  const together = await inWave(sql, scope, Effect.forEach(inputs, ask, { concurrency: "unbounded" }))
  const alone = await Promise.all(inputs.map((i) => inWave(sql, scope, ask(i))))
  expect(together._tag).toBe("Success")
  const values = (together as Exit.Success<Array<O>, unknown>).value
  expect(values).toEqual(alone.map((e) => (e as Exit.Success<O, unknown>).value))
  return values
}
