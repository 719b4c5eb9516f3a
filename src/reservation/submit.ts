import { Effect } from "effect"
import { ReservationProtocol } from "../../actors/reservation/protocol.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ReservationRequest } from "../../schemas/reservation.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, batchResults, hotelNotFound, type ItemAnswer, type Outcome } from "../http/answers.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { toUpsertCommand } from "./normalise.ts"

/**
 * The one way a validated Reservation body becomes a stored reservation: hotel resolved, normalised, upserted by the
 * reservation actor (answered after its commit). Shared by /api/v1/reservations and the CDP's reservation endpoints
 * and bulk jobs, so they keep the same rules.
 */
export const makeSubmitReservation = Effect.gen(function*() {
  const hotels = yield* Hotels
  const actors = yield* ActorClient
  return Effect.fn("Reservations.submit")(function*(scope: TenantScope, request: ReservationRequest) {
    const hotel = yield* hotels.resolve(scope.tenant_id, request)
    if (!hotel.found) return yield* hotelNotFound(hotel)
    const data = yield* answered(actors.for(ReservationProtocol, scope).upsert(toUpsertCommand(request, hotel.hotel_id)))
    return { created: "is_new" in data && data.is_new, data } satisfies Outcome<typeof data>
  })
})

/** A reservations batch's answer (the core batch shape, shared by /reservations/batch and /cdp/reservations/batch). */
export const batchSummary = <A extends object>(answers: ReadonlyArray<ItemAnswer<A>>) => {
  const skipped = answers.filter((a) => a.success && "skipped" in a.data).length
  return {
    total: answers.length,
    created: answers.filter((a) => a.status === 201).length,
    updated: answers.filter((a) => a.status === 200).length - skipped,
    skipped,
    failed: answers.filter((a) => !a.success).length,
    results: batchResults(answers)
  }
}
