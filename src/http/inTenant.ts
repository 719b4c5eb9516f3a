import { Effect } from "effect"
import { actAsTenant, type DatabaseShape, type Tx } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

/** A refusal decided inside a transaction, handed out of it: decided before anything was written, so nothing is. */
export class Refused<E> {
  readonly refusal: E
  constructor(refusal: E) {
    this.refusal = refusal
  }
}

/**
 * A service's transaction confined to the caller's tenant (row-level security): `f` answers a value, or a `Refused`
 * whose refusal the effect fails with. `E` names the refusals this call can decide (a service's signature names them
 * per method).
 */
export const inTenantOf = (db: DatabaseShape) =>
  <A, E = never>(scope: TenantScope, f: (tx: Tx) => Promise<A | Refused<E>>): Effect.Effect<A, E | DatabaseFailure> =>
    db.attemptTransaction(async (tx) => {
      await actAsTenant(tx, scope.tenant_id)
      return f(tx)
    }).pipe(Effect.flatMap((r) => (r instanceof Refused ? Effect.fail(r.refusal as E) : Effect.succeed(r as A))))
