import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database, withTenant } from "../../core/db/Database.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { NotFound, ValidationFailed } from "../../schemas/errors.ts"
import { ReservationCreated, ReservationRequest } from "../../schemas/reservation.ts"
import { batchItems, batchSizeRefused } from "../http/answers.ts"
import { pageRequest } from "../http/paging.ts"
import { listReservations } from "./list.ts"
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
      .handle("get", Effect.fn("Reservations.get")(function*({ params, query }) {
        const principal = yield* CurrentPrincipal
        const found = yield* db.query((sql) =>
          withTenant(sql, principal.tenant_id, (tx) => readReservation(tx, principal, params.id, query.by === "external")))
        if (found === undefined) {
          return yield* NotFound.of(`No reservation with id ${JSON.stringify(params.id)}`, { id: ["not found"] })
        }
        return { success: true as const, data: found }
      }))
      .handle("list", Effect.fn("Reservations.list")(function*({ query }) {
        const principal = yield* CurrentPrincipal
        const page = yield* pageRequest(query)
        if (query.check_in_from !== undefined && query.check_in_to !== undefined && query.check_in_to < query.check_in_from) {
          return yield* ValidationFailed.of("Invalid request: check_in_to must not be before check_in_from", {
            check_in_to: ["must not be before check_in_from"]
          })
        }
        const data = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => listReservations(tx, principal, query, page)))
        return { success: true as const, data }
      }))
  }))
