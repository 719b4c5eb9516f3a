import { Effect } from "effect"
import { VisitorProtocol } from "../../actors/cdp/protocol.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { CdpReservationRequest, CdpReservationResult } from "../../schemas/cdp.ts"
import type { ReservationRequest } from "../../schemas/reservation.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, type Outcome } from "../http/answers.ts"
import { makeSubmitReservation } from "../reservation/submit.ts"

/** The reservation's holder as the actor resolved it: the guest marked holder, else the first with a contact. */
const holderOf = (contacts: ReadonlyArray<{ readonly contact_id: string | null; readonly is_holder: boolean }>) =>
  contacts.find((c) => c.is_holder && c.contact_id !== null)?.contact_id ?? contacts.find((c) => c.contact_id !== null)?.contact_id ?? null

/**
 * A post-checkout reservation: the core Reservation upsert (the same code path and rules as /api/v1/reservations),
 * then, when it names its visit, the visitor actor's checkout link (stage 3 of identity resolution: the session goes
 * to the booker and checkout.completed stops cart journeys). Both steps are idempotent, so a retry after a failure
 * between them finishes the work without doubling it.
 */
export const makeSubmitCdpReservation = Effect.gen(function*() {
  const submit = yield* makeSubmitReservation
  const actors = yield* ActorClient
  return Effect.fn("Cdp.submitReservation")(function*(scope: TenantScope, request: CdpReservationRequest) {
    const { visitor_id, session_id, cart_id, utm, ...core } = request
    const outcome = yield* submit(scope, core as ReservationRequest)
    const data = outcome.data
    if (!("reservation_id" in data)) return outcome as Outcome<CdpReservationResult>
    const named = visitor_id !== undefined || session_id !== undefined || cart_id !== undefined
    const link = named
      ? yield* answered(actors.for(VisitorProtocol, scope).checkout({
        external_reservation_id: data.external_reservation_id, reservation_id: data.reservation_id, hotel_id: data.hotel_id,
        contact_id: holderOf(data.contacts), visitor_id, session_id, cart_id, utm
      }))
      : { visitor_linked: false, sessions_stitched: 0, checkout_event_id: null }
    return { created: outcome.created, data: { ...data, ...link } } satisfies Outcome<CdpReservationResult>
  })
})
