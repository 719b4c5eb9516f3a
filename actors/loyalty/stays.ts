import { Effect } from "effect"
import * as Actor from "../runtime/Actor.ts"
import type { ReverseEarn, StayApplied, StayEvent } from "./creditProtocol.ts"
import type { MemberMessages } from "./memberProtocol.ts"
import * as Repo from "./repository.ts"
import { reverseEarnings } from "./reverse.ts"

// Automatic earning from stays: the reservation actor tells the member actor that a reservation of the member checked
// out (earn, per the programme) or was cancelled or a no-show (reverse what it earned).

type EarnHandler = Actor.Handler<typeof MemberMessages.earn>

/** The retry key of a stay's automatic earning: an API client sending the same key meets the same earning. */
export const stayKey = (reservationId: string) => `res:${reservationId}`

const earnsOf = (memberId: string, reservationId: string) =>
  Actor.query(async (tx) =>
    (await tx`SELECT entry_id FROM loyalty_entries WHERE member_id = ${memberId} AND reservation_id = ${reservationId} AND kind = 'earn' ORDER BY seq`)
      .map((r) => r.entry_id as string))

export const stayEvent = Effect.fn("LoyaltyActor.stayEvent")(function*(cmd: StayEvent, earn: EarnHandler) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const answer = (outcome: "earned" | "already_earned" | "reversed" | "nothing_to_reverse" | "not_earned", detail: string | null = null) =>
    ({ outcome, detail }) satisfies StayApplied
  const earned = yield* earnsOf(cmd.member_id, cmd.reservation_id)
  if (cmd.event !== "checked_out") {
    if (earned.length === 0) return answer("nothing_to_reverse")
    const reverse: ReverseEarn = { member_id: cmd.member_id, transaction_ids: earned, reason: cmd.event === "cancelled" ? "cancellation" : "no_show" }
    yield* reverseEarnings(reverse)
    return answer("reversed")
  }
  // Deduplicated with the API path: whatever earned for this reservation first (a /points call naming it, or this).
  if (earned.length > 0) return answer("already_earned")
  if (cmd.amount === null || cmd.currency === null) return answer("not_earned", "the reservation has no amount and currency")
  const program = yield* Actor.query((tx) => Repo.findProgram(tx, scope))
  return yield* earn({
    member_id: cmd.member_id, external_reference_id: stayKey(cmd.reservation_id), reason: "stay checked out",
    // Pending until confirmed when the programme holds earnings back (pending_days).
    status: (program?.pending_days ?? 0) > 0 ? "pending" : "confirmed",
    stay: {
      amount: cmd.amount, currency: cmd.currency, nights: cmd.nights, reservation_id: cmd.reservation_id, check_in: cmd.check_in,
      check_out: cmd.check_out, hotel: cmd.hotel
    }
  }).pipe(
    Effect.as(answer("earned")),
    Effect.catchTag("LoyaltyRefused", (e) => Effect.succeed(answer("not_earned", `${e.code}: ${e.message}`)))
  )
})
