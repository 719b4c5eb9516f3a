import { Effect } from "effect"
import { type LoyaltyCommand, LoyaltyProtocol, type LoyaltyRefused, type LoyaltyResult } from "../../actors/loyalty/protocol.ts"
import { Database, type Tx, withTenant } from "../../core/db/Database.ts"
import type { Principal } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import type { Conflict, NotFound, Unprocessable } from "../../schemas/errors.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered } from "../http/answers.ts"
import { emailOf, invalid, memberNotFound } from "./edge.ts"
import { findMemberId } from "./reads.ts"

/** What every loyalty handler group uses: reads in the tenant, the member a request names, and the member's actor. */
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

  const send = <Op extends LoyaltyResult["op"], E extends NotFound | Conflict | Unprocessable>(p: Principal, command: LoyaltyCommand, op: Op, refused: (e: LoyaltyRefused) => E) =>
    answered(actors.for(LoyaltyProtocol, p).apply(command)).pipe(
      Effect.catchTag("LoyaltyRefused", (e) => Effect.fail(refused(e))),
      Effect.flatMap((r) => r.op === op ? Effect.succeed(r as Extract<LoyaltyResult, { op: Op }>) : Effect.die(new Error(`loyalty actor answered ${r.op}`)))
    )

  return { read, resolve, send }
})
