import { Effect, Result, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { ReservationRequest } from "../../schemas/reservation.ts"
import { IngressPublisher } from "../../streams/IngressPublisher.ts"
import { Database } from "../db/Database.ts"
import { toUpsertCommand } from "../reservations/normalise.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { issueDetails, summarise } from "./issues.ts"
import { readReservation } from "../reservations/read.ts"

const BATCH_MAX = 50
const RETRY_AFTER_S = 2

interface Answer {
  readonly status: number
  readonly body: unknown
}

const failure = (status: number, code: string, message: string, details: Record<string, unknown> = {}): Answer =>
  ({ status, body: { success: false, error: { message, code, details } } })

const respond = (a: Answer) =>
  HttpServerResponse.jsonUnsafe(a.body, {
    status: a.status,
    headers: a.status === 503 ? { "retry-after": String(RETRY_AFTER_S) } : {}
  })

const decodeReservation = Schema.decodeUnknownResult(ReservationRequest, { errors: "all" })

export const ReservationsLive = HttpApiBuilder.group(Api, "reservations", (handlers) =>
  Effect.gen(function*() {
    const hotels = yield* Hotels
    const publisher = yield* IngressPublisher
    const db = yield* Database

    /** Validated request → hotel → envelope on the reservation's partition → the actor's committed answer. */
    const submit = Effect.fn("Reservations.submit")(function*(principal: Principal, request: ReservationRequest) {
      const hotel = yield* hotels.resolve(principal.tenant_id, request)
      if (!hotel.found) {
        return failure(422, "HOTEL_NOT_FOUND", `No hotel with ${hotel.field} ${JSON.stringify(hotel.value)} in this account`, {
          [hotel.field]: ["no such hotel in this account"]
        })
      }
      const command = toUpsertCommand(request, hotel.hotel_id)
      return yield* publisher.request({
        actor: "reservation",
        type: "reservation.upsert",
        tenant_id: principal.tenant_id,
        sandbox: principal.sandbox,
        key: request.reservation_id,
        payload: command
      }).pipe(
        Effect.map((reply): Answer => ({ status: reply.status, body: reply.body })),
        Effect.catchTag("NotConfirmed", (e) =>
          Effect.succeed(failure(503, "SERVICE_UNAVAILABLE",
            e.stage === "publish"
              ? "The request could not be queued; nothing was stored. Retry after Retry-After seconds"
              : "The write was queued but not confirmed in time; retrying the same request is safe",
            { retry_after_seconds: RETRY_AFTER_S })))
      )
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
          const answers = yield* Effect.forEach(items, (item) => {
            const decoded = decodeReservation(item)
            if (Result.isFailure(decoded)) {
              const details = issueDetails(decoded.failure.issue)
              return Effect.succeed(failure(400, "VALIDATION_ERROR", summarise(details), details))
            }
            return submit(principal, decoded.success)
          }, { concurrency: "unbounded" })
          const results = answers.map((a, index) => {
            const body = a.body as { success: boolean; data?: unknown; error?: unknown }
            return a.status < 300
              ? { index, success: true, status: a.status, data: body.data }
              : { index, success: false, status: a.status, error: body.error }
          })
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
          const found = yield* db.query((sql) => readReservation(sql, principal, params.reservation_id))
          return found === undefined
            ? respond(failure(404, "NOT_FOUND", `No reservation with reservation_id ${JSON.stringify(params.reservation_id)}`, {
              reservation_id: ["not found"]
            }))
            : respond({ status: 200, body: { success: true, data: found } })
        }))
  }))
