import { Effect } from "effect"
import { LoyaltyProtocol } from "../../actors/loyalty/protocol.ts"
import { Database, type Tx, withTenant } from "../../core/db/Database.ts"
import type { Principal } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { emailOf, invalid, memberNotFound } from "./edge.ts"
import { findMemberId } from "./reads.ts"

/** What every loyalty handler group uses: reads in the tenant, the member a request names, and the loyalty actor. */
export const LoyaltyIngress = Effect.gen(function*() {
  const db = yield* Database
  const actors = yield* ActorClient
  const read = <A>(p: Principal, f: (tx: Tx) => Promise<A>) => db.query((sql) => withTenant(sql, p.tenant_id, f))

  /**
   * The member a request names, by member_id or email (exactly one), resolved by a read before anything is
   * published: the actor key is always the member_id, so one member is always one actor.
   */
  const resolve = Effect.fn("Loyalty.resolve")(function*(p: Principal, by: { readonly member_id?: string | undefined; readonly email?: string | undefined }) {
    if ((by.member_id === undefined) === (by.email === undefined)) {
      return yield* invalid({ member_id: ["exactly one of member_id or email is required"] })
    }
    if (by.member_id !== undefined && !isUuid(by.member_id)) {
      return yield* invalid({ member_id: ["must be a UUID"] })
    }
    const email = by.email === undefined ? undefined : yield* emailOf(by.email)
    const id = yield* read(p, (tx) => findMemberId(tx, p, by.member_id !== undefined ? { member_id: by.member_id } : { email: email! }))
    if (id === undefined) return yield* memberNotFound(by.member_id !== undefined ? "member_id" : "email")
    return id
  })

  /**
   * The loyalty actor, asked as the principal: one method per message, each answering its own type (pipe it through
   * `answeredAs` for the edge's errors).
   */
  const loyalty = (p: Principal) => actors.for(LoyaltyProtocol, p)

  return { read, resolve, loyalty }
})
