import { Effect, Exit } from "effect"
import { databaseFailure, type DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { Sql, Tx } from "../../core/db/Database.ts"

/** Thrown inside postgres.js's transaction callback so it rolls back; the body's own failure is re-raised after. */
const RolledBack = Symbol("RolledBack")

/**
 * Runs an Effect body in one PostgreSQL transaction: committed when the body succeeds, rolled back when it fails (its
 * own error is kept), and a failure of BEGIN or COMMIT itself is a typed DatabaseFailure.
 */
export const transaction = <A, E, R>(sql: Sql, body: (tx: Tx) => Effect.Effect<A, E, R>): Effect.Effect<A, E | DatabaseFailure, R> =>
  Effect.flatMap(Effect.context<R>(), (context) => {
    let failed: Exit.Exit<never, E> | undefined
    return Effect.tryPromise({
      try: () => sql.begin(async (tx) => {
        const exit = await Effect.runPromiseExit(Effect.provideContext(body(tx), context))
        if (Exit.isSuccess(exit)) return exit.value
        failed = exit as Exit.Exit<never, E>
        throw RolledBack
      }) as Promise<A>,
      catch: (e) => (e === RolledBack ? RolledBack : databaseFailure(e))
    }).pipe(Effect.catch((e): Effect.Effect<A, E | DatabaseFailure> => (e === RolledBack ? failed! : Effect.fail(e as DatabaseFailure))))
  })
