import { randomUUID } from "node:crypto"
import type { Tx } from "../../core/db/Database.ts"
import { memberIdFor } from "../../core/loyalty/memberId.ts"
import { normaliseEmail } from "../../core/normalise/index.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ReservationStatus } from "../../schemas/reservation.ts"
import { told } from "../../streams/tell.ts"
import { LoyaltyProtocol, type StayEvent } from "../loyalty/protocol.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import type { ReservationRow } from "./state.ts"

// Automatic loyalty earning: a reservation entering checked_out earns for its holder's loyalty membership, one entering
// cancelled or no_show reverses what it earned. The reservation actor sends the member actor an envelope through its
// outbox (committed with the status change, published after it: nothing lost, Nats-Msg-Id = the message id).

export type StayEventName = "checked_out" | "cancelled" | "no_show"

/** The loyalty event a status change is, if any. */
export const stayEventOf = (previous: ReservationStatus | undefined, next: ReservationStatus): StayEventName | undefined =>
  previous === next ? undefined
  : next === "checked_out" ? "checked_out"
  : next === "cancelled" || next === "no_show" ? next
  : undefined

export interface StayChange {
  readonly external_id: string
  readonly row: ReservationRow
  readonly event: StayEventName
}

/**
 * The envelopes for the loyalty members among these reservations' holders (the holder guest, else the first guest
 * with an email): read after the guests were written; a holder who is no member gets nothing.
 */
export const stayEnvelopes = async (
  tx: Tx, scope: TenantScope, changes: ReadonlyArray<StayChange>, target: { readonly namespace: string; readonly partitions: number },
  sentAt: number
): Promise<Array<{ readonly external_id: string; readonly message: OutboxMessage }>> => {
  if (changes.length === 0) return []
  const holders = await tx`
    SELECT DISTINCT ON (g.reservation_id) g.reservation_id, coalesce(c.email, g.email) AS email
    FROM reservation_guests g LEFT JOIN contacts c ON c.id = g.contact_id
    WHERE g.reservation_id = ANY(${changes.map((c) => c.row.id)}::uuid[]) AND coalesce(c.email, g.email) IS NOT NULL
    ORDER BY g.reservation_id, g.is_holder DESC, g.position`
  const memberOf = new Map<string, string>()
  for (const h of holders) {
    const email = normaliseEmail(h.email as string)
    if (email.ok) memberOf.set(h.reservation_id as string, memberIdFor(scope, email.email))
  }
  const known = new Set((await tx`SELECT member_id FROM loyalty_members WHERE member_id = ANY(${[...memberOf.values()]}::uuid[])`).map((r) => r.member_id as string))
  return changes.flatMap((c) => {
    const memberId = memberOf.get(c.row.id)
    if (memberId === undefined || !known.has(memberId)) return []
    const command: StayEvent = {
      member_id: memberId, event: c.event, reservation_id: c.external_id, amount: c.row.amount_net ?? c.row.amount,
      currency: c.row.currency === null ? null : c.row.currency.toUpperCase(), nights: c.row.nights, check_in: c.row.check_in,
      check_out: c.row.check_out, hotel: c.row.hotel_id
    }
    return [{ external_id: c.external_id, message: told(target, LoyaltyProtocol, "stayEvent", scope, command, randomUUID(), sentAt) }]
  })
}
