import { Effect } from "effect"
import * as Actor from "../runtime/Actor.ts"
import { LoyaltyRefused, type RefusalCode, type Refused } from "./refusalProtocol.ts"
import * as Repo from "./repository.ts"
import { minorToPoints } from "../../core/loyalty/conversion.ts"

/** Refuses a write: nothing of it is stored (every handler checks before its first write). Typed by its code. */
export const refuse = <C extends RefusalCode>(code: C, message: string, details: Record<string, unknown> = {}) =>
  Effect.fail(new LoyaltyRefused({ code, message, details }) as Refused<C>)

/** The member, locked for this transaction, whether active or unsubscribed; refused when unknown. */
export const knownMemberOrRefuse = Effect.fn("LoyaltyActor.member")(function*(memberId: string) {
  const member = yield* Actor.query((tx) => Repo.loadMemberForUpdate(tx, memberId))
  if (member === undefined) return yield* refuse("MEMBER_NOT_FOUND", `No loyalty member with member_id ${JSON.stringify(memberId)}`, { member_id: ["not found"] })
  return member
})

/** The member, locked for this transaction; refused when unknown or unsubscribed. */
export const memberOrRefuse = Effect.fn("LoyaltyActor.activeMember")(function*(memberId: string) {
  const member = yield* knownMemberOrRefuse(memberId)
  if (member.status !== "active") return yield* refuse("MEMBER_INACTIVE", "The member has unsubscribed from the programme", { member_id: ["unsubscribed"] })
  return member
})

/** The points an amount costs at the programme's point_value; refused when it is less than one minor unit (no money). */
export const pointsOfAmount = (amountMinor: number, pointValue: number) => {
  const points = minorToPoints(amountMinor, pointValue)
  return points >= 1
    ? Effect.succeed(points)
    : refuse("AMOUNT_TOO_SMALL", "The amount is less than one minor unit of the currency (0.01)", { amount: ["must be at least 0.01"] })
}
