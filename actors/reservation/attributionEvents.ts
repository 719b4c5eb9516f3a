import { randomUUID } from "node:crypto"
import type { OutboxMessage } from "../runtime/Actor.ts"
import type { OutboxMeta } from "../shared/contactEvents.ts"
import type { AttributionChange } from "./attributionRepository.ts"
import type { ReservationRow } from "./state.ts"
import { WebhookCommands } from "../../streams/topics.ts"

/** The reservation as an attribution webhook shows it. */
export interface AttributedReservation {
  readonly id: string
  readonly external_id: string
  readonly row: Pick<ReservationRow, "hotel_id" | "status" | "check_in" | "check_out" | "nights" | "amount" | "currency" | "booking_date">
}

/**
 * `reservation.attribution_changed`: the reservation, its attribution now, and what it was (null: none). Receivers
 * moving production between accounts need both sides.
 */
export const attributionChangedCommand = (
  subject: (kind: "cmd", name: string) => string,
  meta: OutboxMeta,
  reservation: AttributedReservation,
  change: AttributionChange
): OutboxMessage =>
  WebhookCommands.message(randomUUID(), subject("cmd", "webhook.reservation.attribution_changed"), {
    ...meta,
    event_type: "reservation.attribution_changed",
    data: {
      reservation: {
        id: reservation.id, reservation_id: reservation.external_id, hotel_id: reservation.row.hotel_id,
        status: reservation.row.status, check_in: reservation.row.check_in, check_out: reservation.row.check_out,
        nights: reservation.row.nights, booking_date: reservation.row.booking_date, amount: reservation.row.amount,
        currency: reservation.row.currency
      },
      attribution: change.attribution,
      previous: change.previous
    }
  })
