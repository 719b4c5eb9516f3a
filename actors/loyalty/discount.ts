import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import { pointsToMinor } from "../../core/loyalty/conversion.ts"
import type { ApplyDiscount, DiscountApplied } from "./memberProtocol.ts"
import { memberOrRefuse, pointsOfAmount, refuse } from "./refusals.ts"
import * as Repo from "./repository.ts"
import { spend } from "./state.ts"
import { settle } from "./holds.ts"
import { commandTime } from "./clock.ts"

/**
 * Points spent as a discount on a booking, valued at the programme's point_value. Not idempotent, as the spec says
 * (two calls deduct twice): booking flows that retry should use a redemption with an external_reference_id.
 */
export const applyDiscount = Effect.fn("LoyaltyActor.applyDiscount")(function*(cmd: ApplyDiscount) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* memberOrRefuse(cmd.member_id)
  const program = yield* Actor.query((tx) => Repo.findProgram(tx, scope))
  if (program === undefined || program.point_value <= 0) {
    return yield* refuse("PROGRAM_NOT_CONFIGURED", "No programme point_value to value the discount: PUT /api/v1/loyalty/program first", { points: ["no point_value"] })
  }
  if (cmd.currency !== undefined && cmd.currency !== program.currency) {
    return yield* refuse("CURRENCY_MISMATCH", `The programme's currency is ${program.currency}`, { currency: [`must be ${program.currency}`] })
  }
  const points = cmd.points ?? (yield* pointsOfAmount(cmd.amount_minor!, program.point_value))
  const expired = settle(member.wallet, now, randomUUID)
  const entryId = randomUUID()
  const spent = spend(expired.wallet, { entry_id: entryId, points, kind: "discount" }, now)
  if (!spent.ok) {
    return yield* refuse("INSUFFICIENT_POINTS", `The member has ${spent.available} points available, ${spent.requested} needed`, {
      [cmd.points !== undefined ? "points" : "amount"]: ["more than the member's available points"], requested: spent.requested, available: spent.available
    })
  }
  yield* Actor.query((tx) =>
    Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, spent.transition.wallet, [...expired.entries, ...spent.transition.entries], {
      reservation_id: cmd.reservation_id, reason: cmd.reference_id === null ? "discount" : `discount (reference ${cmd.reference_id})`
    }))
  return {
    transaction_id: entryId, points_deducted: points, discount_minor: pointsToMinor(points, program.point_value),
    currency: program.currency, balances: Repo.balancesOf(spent.transition.wallet)
  } satisfies DiscountApplied
})
