import { Cause, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { DatabaseError, DatabaseUnavailable, isDataFailureCode, isDatabaseAway } from "../../core/db/DatabaseFailure.ts"
import { errorText } from "../../core/observability/log.ts"
import { RETRY_AFTER_S } from "./answers.ts"

/** The core error shape's body (`request_id` is added by the edge, or by whoever answers before it). */
export const coreErrorBody = (code: string, message: string, details: Record<string, unknown> = {}, requestId?: string) =>
  ({ success: false as const, error: { message, code, details, ...(requestId === undefined ? {} : { request_id: requestId }) } })

/**
 * A raw answer in the core error shape `{ success: false, error: { message, code, details } }`: the router's own
 * answers and the routes outside HttpApi have no endpoint (so no declared schema) to encode them. A 503 tells the
 * client when to retry (RETRY_AFTER_S unless `headers` says otherwise).
 */
export const coreErrorResponse = (
  status: number, code: string, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}
) =>
  HttpServerResponse.jsonUnsafe(
    coreErrorBody(code, message, details),
    { status, headers: status === 503 ? { "retry-after": String(RETRY_AFTER_S), ...headers } : headers }
  )

const shaped = coreErrorResponse

/** nginx's status for a request whose client went away before the answer: never sent, only logged and counted. */
export const CLIENT_CLOSED = 499

/** The router's own 404s (no route for the method and path), told apart from a handler's 404 by the edge's 405. */
const routeNotFound = new WeakSet<HttpServerResponse.HttpServerResponse>()
export const isRouteNotFound = (response: HttpServerResponse.HttpServerResponse): boolean => routeNotFound.has(response)
const noSuchEndpoint = () => {
  const response = shaped(404, "NOT_FOUND", "No such endpoint")
  routeNotFound.add(response)
  return response
}

/**
 * Every answer the router produces on its own (unknown route, unsupported media type, an unexpected defect) in the
 * core error shape, so clients parse one format.
 */
export const toCoreErrorShape = <R>(httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  httpEffect.pipe(
    Effect.map((response) =>
      response.status === 415
        ? shaped(415, "UNSUPPORTED_MEDIA_TYPE", "Send a JSON body with Content-Type: application/json")
        : response.status === 503 && response.headers["retry-after"] === undefined
        // Every 503 tells the client when to retry (the Unavailable error body carries the same seconds).
        ? HttpServerResponse.setHeader(response, "retry-after", String(RETRY_AFTER_S))
        : response
    ),
    Effect.catchCause((cause) => {
      // Interrupted, not failed: the client closed the connection before its answer (a webhook sender's own 10 s
      // deadline, say) or the server is stopping. Nobody reads this answer; the access log says 499, as nginx does,
      // instead of a 500 and an error line for a failure that never happened.
      if (Cause.hasInterruptsOnly(cause)) {
        return Effect.logInfo("request closed before its answer").pipe(Effect.as(HttpServerResponse.empty({ status: CLIENT_CLOSED })))
      }
      const error = Cause.squash(cause) as { _tag?: string; reason?: { _tag?: string; reason?: string } }
      const tag = error?.reason?._tag ?? error?._tag
      if (tag === "RouteNotFound") return Effect.succeed(noSuchEndpoint())
      if (tag === "RequestParseError") {
        return Effect.succeed(error.reason?.reason === "BodyTooLarge"
          ? shaped(413, "PAYLOAD_TOO_LARGE", "The request body is too large")
          : shaped(400, "INVALID_REQUEST", "The request could not be read"))
      }
      if (error instanceof DatabaseUnavailable || isDatabaseAway(error)) {
        // The database (or NATS) is away: a retry later will work, so this is not an internal error.
        return Effect.logWarning("request failed: infrastructure unavailable").pipe(
          Effect.annotateLogs({ error: errorText(error) }),
          Effect.as(shaped(503, "SERVICE_UNAVAILABLE", "Temporarily unavailable; retry after Retry-After seconds", { retry_after_seconds: RETRY_AFTER_S }))
        )
      }
      if (error instanceof DatabaseError && isDataFailureCode(error.code)) {
        // Defence in depth behind the contract's checks: a value the database refuses is the request's fault and
        // repeats on every retry, so a 4xx, never a 500 (logged as an error: the contract should have caught it).
        return Effect.logError("request refused by the database for its data").pipe(
          Effect.annotateLogs({ error: errorText(error) }),
          Effect.as(shaped(422, "INVALID_DATA", "The request holds a value that cannot be stored", {
            "(body)": [`a value cannot be stored (SQLSTATE ${error.code})`]
          }))
        )
      }
      return Effect.logError("unhandled request failure").pipe(
        Effect.annotateLogs({ error: errorText(Cause.squash(cause)) }),
        Effect.as(shaped(500, "INTERNAL_ERROR", "Internal error"))
      )
    })
  )
