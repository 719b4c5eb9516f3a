import { DateTime, Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import type { Balances } from "./balances.ts"
import * as Repo from "./tierRepository.ts"
import { WebhookCommands } from "../../streams/topics.ts"

// Loyalty webhook commands (payloads: schemas/loyaltyEvents.ts), written to the outbox in the member's transaction,
// so an event exists exactly when its change committed.

type Tier = { readonly slug: string; readonly name: string } | null

const webhook = Effect.fn("LoyaltyEvents.webhook")(function*(eventType: string, data: unknown) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const occurredAt = (yield* DateTime.nowAsDate).toISOString()
  yield* Actor.emit([WebhookCommands.message(randomUUID(), subject("cmd", `webhook.${eventType}`), {
    tenant_id: scope.tenant_id, sandbox: scope.sandbox, occurred_at: occurredAt, event_type: eventType, data
  })])
})

export const memberEnrolled = (member: { member_id: string; email: string; first_name: string | null; last_name: string | null; phone: string | null }, isNew: boolean, reactivated: boolean, balances: Balances) =>
  webhook("loyalty.member.enrolled", { member, is_new: isNew, reactivated, balances })

export const pointsEarned = (e: {
  member_id: string; transaction_id: string; status: "pending" | "confirmed"; points: number; reason: string | null; reservation_id: string | null
  action_type: string | null; expires_at: string | null; balances: Balances
}) => webhook("loyalty.points.earned", e)

export const fulfilmentRequired = (r: {
  member_id: string; redemption_id: string; transaction_id: string; reward: { reward_id: string; name: string; type: string } | null; quantity: number; points: number
  notes: string | null
}) => webhook("loyalty.redemption.fulfilment_required", { ...r, status: "pending" })

export const pointsReversed = (e: {
  member_id: string; transaction_id: string; status: "reversed" | "voided"; points_reversed: number; points_voided: number; points_unrecovered: number
  reason: string | null; balances: Balances
}) => webhook("loyalty.points.reversed", e)

/** The member's tier now (in this transaction). */
export const tierNow = (memberId: string) =>
  Effect.flatMap(Effect.service(Actor.GroupTransaction), ({ scope }) => Actor.query((tx) => Repo.tierOf(tx, scope, memberId)))

/** Emits loyalty.tier.changed when the tier after a change of qualifying totals differs from `before`. */
export const tierChangedSince = Effect.fn("LoyaltyEvents.tierChangedSince")(function*(memberId: string, before: Tier) {
  const after = yield* tierNow(memberId)
  if ((before?.slug ?? null) === (after?.slug ?? null)) return
  const totals = yield* Actor.query((tx) => Repo.qualifyingOf(tx, memberId))
  yield* webhook("loyalty.tier.changed", { member_id: memberId, previous: before, tier: after, ...totals })
})
