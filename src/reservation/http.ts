import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { ReservationRequest } from "../../schemas/reservation.ts"
import { IngressPublisher } from "../../streams/IngressPublisher.ts"
import { Database, withTenant } from "../../core/db/Database.ts"
import { toUpsertCommand } from "./normalise.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { askActor, batchItem, batchResults, failure, hotelNotFound, respond } from "../http/answers.ts"
import { readReservation } from "./read.ts"

const BATCH_MAX = 50


export const ReservationsLive = HttpApiBuilder.group(Api, "reservations", (handlers) =>
  Effect.gen(function*() {
    const hotels = yield* Hotels
    const publisher = yield* IngressPublisher
    const db = yield* Database

    /** Validated request → hotel → envelope on the reservation's partition → the actor's committed answer. */
    const submit = Effect.fn("Reservations.submit")(function*(principal: Principal, request: ReservationRequest) {
      const hotel = yield* hotels.resolve(principal.tenant_id, request)
      if (!hotel.found) {
        return hotelNotFound(hotel)
      }
      const command = toUpsertCommand(request, hotel.hotel_id)
      return yield* askActor(publisher, principal, "reservation", "reservation.upsert", request.reservation_id, command)
    })

    return handlers
      .handle("upsert", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          return respond(yield* submit(principal, payload))
        }))
      .handle("batch", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const items = payload.reservations
          if (items.length === 0 || items.length > BATCH_MAX) {
            return respond(failure(400, "VALIDATION_ERROR", `reservations must hold 1 to ${BATCH_MAX} items`, {
              reservations: [`must hold 1 to ${BATCH_MAX} items (got ${items.length})`]
            }))
          }
          const answers = yield* Effect.forEach(items, batchItem(ReservationRequest, (r) => submit(principal, r)), { concurrency: "unbounded" })
          const results = batchResults(answers)
          const skipped = answers.filter((a) => a.status === 200 && (a.body as { data?: { skipped?: string } }).data?.skipped).length
          return respond({
            status: 200,
            body: {
              success: true,
              data: {
                total: answers.length,
                created: answers.filter((a) => a.status === 201).length,
                updated: answers.filter((a) => a.status === 200).length - skipped,
                skipped,
                failed: answers.filter((a) => a.status >= 300).length,
                results
              }
            }
          })
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const found = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => readReservation(tx, principal, params.reservation_id)))
          return found === undefined
            ? respond(failure(404, "NOT_FOUND", `No reservation with reservation_id ${JSON.stringify(params.reservation_id)}`, {
              reservation_id: ["not found"]
            }))
            : respond({ status: 200, body: { success: true, data: found } })
        }))
  }))
