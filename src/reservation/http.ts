import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ReservationProtocol } from "../../actors/reservation/protocol.ts"
import { Database, withTenant } from "../../core/db/Database.ts"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { NotFound } from "../../schemas/errors.ts"
import { ReservationCreated, ReservationRequest } from "../../schemas/reservation.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, asJson, batchItems, batchResults, batchSizeRefused, hotelNotFound, type Outcome } from "../http/answers.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { toUpsertCommand } from "./normalise.ts"
import { readReservation } from "./read.ts"

const BATCH_MAX = 50

export const ReservationsLive = HttpApiBuilder.group(Api, "reservations", (handlers) =>
  Effect.gen(function*() {
    const hotels = yield* Hotels
    const actors = yield* ActorClient
    const db = yield* Database
    const reservationItem = batchItems(ReservationRequest)

    /** Validated request → hotel → the reservation actor's committed result. */
    const submit = Effect.fn("Reservations.submit")(function*(principal: Principal, request: ReservationRequest) {
      const hotel = yield* hotels.resolve(principal.tenant_id, request)
      if (!hotel.found) return yield* hotelNotFound(hotel)
      const data = yield* answered(actors.for(ReservationProtocol, principal).upsert(toUpsertCommand(request, hotel.hotel_id)))
      return { created: "is_new" in data && data.is_new, data } satisfies Outcome<typeof data>
    })

    return handlers
      .handle("upsert", ({ payload }) =>
        Effect.gen(function*() {
          const { created, data } = yield* submit(yield* CurrentPrincipal, payload)
          return created ? new ReservationCreated({ success: true, data }) : { success: true as const, data }
        }))
      .handle("batch", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const items = payload.reservations
          if (items.length === 0 || items.length > BATCH_MAX) return yield* batchSizeRefused("reservations", BATCH_MAX, items.length)
          const answers = yield* Effect.forEach(items, reservationItem((r) => submit(principal, r)), { concurrency: "unbounded" })
          const skipped = answers.filter((a) => a.success && "skipped" in a.data).length
          return {
            success: true as const,
            data: {
              total: answers.length,
              created: answers.filter((a) => a.status === 201).length,
              updated: answers.filter((a) => a.status === 200).length - skipped,
              skipped,
              failed: answers.filter((a) => !a.success).length,
              results: batchResults(answers)
            }
          }
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const found = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => readReservation(tx, principal, params.reservation_id)))
          if (found === undefined) {
            return yield* NotFound.of(`No reservation with reservation_id ${JSON.stringify(params.reservation_id)}`, { reservation_id: ["not found"] })
          }
          return { success: true as const, data: asJson(found) }
        }))
  }))
