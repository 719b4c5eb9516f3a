import { Effect } from "effect"
import { ReservationProtocol, type UpsertReservation } from "../../actors/reservation/protocol.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ReservationRequest } from "../../schemas/reservation.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, batchResults, hotelNotFound, type ItemAnswer, type Outcome } from "../http/answers.ts"
import { makeSubjectCheck, type SubjectCheck, suppressedWarning } from "../privacy/subjectCheck.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { toUpsertCommand } from "./normalise.ts"

/**
 * The command without the guests a privacy request suppressed (issue 26): the reservation keeps its facts, each
 * left-out guest is a `subject_suppressed` warning naming its place in the request, and the actor stores the
 * reservation even when no guest is left (`suppressed_guests`).
 */
const withoutSuppressedGuests = Effect.fn("Reservations.withoutSuppressedGuests")(function*(
  check: SubjectCheck, scope: TenantScope, command: UpsertReservation
) {
  const suppressed = yield* check.suppressedPeople(scope, command.guests)
  if (suppressed.size === 0) return command
  return {
    ...command,
    guests: command.guests.filter((_, i) => !suppressed.has(i)),
    warnings: [...command.warnings, ...[...suppressed].map((i) => suppressedWarning(`guests[${i}]`))],
    suppressed_guests: suppressed.size
  } satisfies UpsertReservation
})

/**
 * The one way a validated Reservation body becomes a stored reservation: hotel resolved, normalised, suppressed
 * guests left out, upserted by the reservation actor (answered after its commit). Shared by /api/v1/reservations and
 * the CDP's reservation endpoints and bulk jobs, so they keep the same rules.
 */
export const makeSubmitReservation = Effect.gen(function*() {
  const hotels = yield* Hotels
  const actors = yield* ActorClient
  const check = yield* makeSubjectCheck
  return Effect.fn("Reservations.submit")(function*(scope: TenantScope, request: ReservationRequest) {
    const hotel = yield* hotels.resolve(scope.tenant_id, request)
    if (!hotel.found) return yield* hotelNotFound(hotel)
    const command = yield* withoutSuppressedGuests(check, scope, toUpsertCommand(request, hotel.hotel_id))
    const data = yield* answered(actors.for(ReservationProtocol, scope).upsert(command))
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
