import { Context, Effect, Exit, Request, RequestResolver } from "effect"
import { databaseFailure, type DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { GroupTransaction } from "./Actor.ts"

interface GroupRequest<I, O> extends Request.Request<O, DatabaseFailure, GroupTransaction> {
  readonly input: I
}

/**
 * A statement that the handlers of one wave share: each handler asks with its own input, and what the wave's concurrent
 * handlers ask before they next wait is run as one call of `run` (Effect's request batching, keyed by the wave's
 * transaction, so two waves or two groups never share a call). A per-envelope handler keeps its shape (read, decide,
 * write) while the wave makes one multi-row statement of each step instead of one statement per envelope, which was
 * what the message sender's socket writes and PostgreSQL's time went to (ADR 0034).
 *
 * `run` answers one output per input, in the inputs' order; its failure fails every handler that asked (the group is
 * retried, as for any statement of it). A handler that asks alone (nothing else asked in its turn) gets a call of one.
 */
export const groupBatched = <I, O>(
  name: string,
  run: (tx: Tx, scope: TenantScope, inputs: ReadonlyArray<I>) => Promise<ReadonlyArray<O>>
): (input: I) => Effect.Effect<O, DatabaseFailure, GroupTransaction> => {
  const make = Request.of<GroupRequest<I, O>>()
  const resolver = RequestResolver.makeWith<GroupRequest<I, O>>({
    // The wave's service value: one object per wave, shared by its handlers (actors/runtime/applyGroup.ts).
    batchKey: (entry) => Context.get(entry.context, GroupTransaction),
    delay: Effect.yieldNow,
    collectWhile: () => true,
    runAll: (entries, key) => {
      const group = key as GroupTransaction["Service"]
      return Effect.tryPromise({ try: () => run(group.tx, group.scope, entries.map((e) => e.request.input)), catch: databaseFailure }).pipe(
        Effect.map((outputs) => entries.forEach((entry, i) => entry.completeUnsafe(Exit.succeed(outputs[i]!))))
      )
    }
  }).pipe(RequestResolver.withSpan(name))
  return (input) => Effect.request(make({ input }), resolver)
}
