import { Effect } from "effect"
import { type DatabaseFailure, isDatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { CurrentPrincipal } from "../../schemas/api.ts"

/** The calling key's account and mode: a sandbox key reads and writes the sandbox, a live key the live data. */
export const callerScope = Effect.gen(function*() {
  const p = yield* CurrentPrincipal
  return { tenant_id: p.tenant_id, sandbox: p.sandbox } satisfies TenantScope
})

/**
 * For endpoints that declare no database failure: it becomes a defect, which the error shape answers (503 when the
 * database is away, 500 otherwise).
 */
export const orDieOnDatabase = <A, E>(effect: Effect.Effect<A, E | DatabaseFailure>): Effect.Effect<A, Exclude<E, DatabaseFailure>> =>
  effect.pipe(Effect.catchIf(isDatabaseFailure, Effect.die)) as Effect.Effect<A, Exclude<E, DatabaseFailure>>
