import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database, withTenant } from "../../core/db/Database.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { NotFound } from "../../schemas/errors.ts"
import { ReservationCreated, ReservationRequest } from "../../schemas/reservation.ts"
import { asJson, batchItems, batchSizeRefused } from "../http/answers.ts"
import { readReservation } from "./read.ts"
import { batchSummary, makeSubmitReservation } from "./submit.ts"
import { requestWarnings, withWarnings } from "../http/unknownFields.ts"

const BATCH_MAX = 50

export const ReservationsLive = HttpApiBuilder.group(Api, "reservations", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const reservationItem = batchItems(ReservationRequest)
    const submit = yield* makeSubmitReservation
    const unknownFields = requestWarnings(ReservationRequest)

    return handlers
      .handle("upsert", ({ payload }) =>
        Effect.gen(function*() {
          const outcome = yield* submit(yield* CurrentPrincipal, payload)
          const data = withWarnings(outcome.data, yield* unknownFields)
          const created = outcome.created
          return created ? new ReservationCreated({ success: true, data }) : { success: true as const, data }
        }))
      .handle("batch", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const items = payload.reservations
          if (items.length === 0 || items.length > BATCH_MAX) return yield* batchSizeRefused("reservations", BATCH_MAX, items.length)
          const answers = yield* Effect.forEach(items, reservationItem((r) => submit(principal, r)), { concurrency: "unbounded" })
          return { success: true as const, data: batchSummary(answers) }
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
