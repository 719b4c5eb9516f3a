import { Effect } from "effect"
import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import * as Actor from "../runtime/Actor.ts"
import { refuse } from "./refusals.ts"

// Per-member limits of /actions: a limited earning takes a claim (member, action type, scope key). The check here is
// the actor's; the claim table's primary key is the backstop if two writers ever raced past it.

/** Refuses ACTION_LIMIT_REACHED when the member already earned this action in this scope. */
export const refuseClaimed = Effect.fn("LoyaltyActor.refuseClaimed")(function*(memberId: string, actionType: string, scope: string) {
  const [earlier] = yield* Actor.query((tx) => tx`SELECT entry_id FROM loyalty_action_claims
    WHERE member_id = ${memberId} AND action_type = ${actionType} AND scope_key = ${scope}`)
  if (earlier === undefined) return
  return yield* refuse("ACTION_LIMIT_REACHED", scope === ""
    ? `The member already earned ${actionType}, which is earned once per member`
    : `The member already earned ${actionType} for scope_key ${JSON.stringify(scope)}`, {
    [scope === "" ? "action_type" : "scope_key"]: ["already earned by this member"], transaction_id: earlier.entry_id
  })
})

/** Records the claim of a limited action earning, in the earning's transaction. */
export const claim = (tx: Tx, s: TenantScope, memberId: string, actionType: string, scope: string, entryId: string) =>
  tx`INSERT INTO loyalty_action_claims (tenant_id, sandbox, member_id, action_type, scope_key, entry_id)
    VALUES (${s.tenant_id}, ${s.sandbox}, ${memberId}, ${actionType}, ${scope}, ${entryId})`
