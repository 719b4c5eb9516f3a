import { Cause, Effect, Exit, Layer, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { isRouteNotFound } from "./errorShape.ts"
import { IdempotencySlot, REPLAYED_HEADER } from "./idempotency/Idempotency.ts"
import { IdempotencyStore, type KeyOf, type StoredAnswer } from "./idempotency/IdempotencyStore.ts"
import { Observability } from "./metrics.ts"
import { methodNotAllowed, type RouteTable, routeTable } from "./methods.ts"
import { requestIdOf, withRequestIdInBody } from "./requestId.ts"
import { writeAccessLine } from "../../core/observability/accessLog.ts"
import { AccessFacts, type AccessFactsShape } from "./accessFacts.ts"
import { routeLabel } from "./metrics.ts"
import { AdmissionSlot } from "../../streams/Admission.ts"

type Store = IdempotencyStore["Service"]

/** Per-call headers never replayed: the replay gets its own. */
const NOT_REPLAYED = new Set(["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after", "date", "content-length", REPLAYED_HEADER])
/** Answers a retry could change (a 5xx, a limit, a credential or scope since fixed) are never stored. */
const NOT_DECIDED = new Set([401, 403, 408, 425, 429])

/** The answer as stored for replay, or undefined when it is not a decided outcome (or not bytes we can replay). */
const storable = (response: HttpServerResponse.HttpServerResponse): StoredAnswer | undefined => {
  if (response.status >= 500 || NOT_DECIDED.has(response.status)) return undefined
  const body = response.body
  if (body._tag !== "Uint8Array" && body._tag !== "Empty") return undefined
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) if (!NOT_REPLAYED.has(name)) headers[name] = value
  if (body._tag === "Uint8Array") headers["content-type"] = body.contentType
  return { status: response.status, headers, body: body._tag === "Uint8Array" ? body.body : new Uint8Array() }
}

/** The key this request held: its answer stored, or the key given back so a retry runs again. */
const settle = (store: Store, key: KeyOf, response: HttpServerResponse.HttpServerResponse | undefined) => {
  const answer = response === undefined ? undefined : storable(response)
  const done = answer === undefined ? store.release(key) : store.complete(key, answer)
  // The answer is already decided: a store failing now is logged, and the key frees itself when its lease ends.
  return done.pipe(Effect.catchCause((cause) => Effect.logWarning("idempotency key not settled", cause)))
}

/** The answer's access-log line; with no answer, 499 when the client went away, 500 for a defect past the error shape. */
const accessLine = (
  requestId: string, request: HttpServerRequest.HttpServerRequest, status: number,
  response: HttpServerResponse.HttpServerResponse | undefined, started: number, facts: AccessFactsShape
) => {
  const body = response?.body
  const length = response?.headers["content-length"]
  writeAccessLine({
    request_id: requestId, method: request.method, route: routeLabel(request.url), status,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    // contentLength, not body.length: a text body is encoded only when something asks for its bytes, and Node writes
    // the text itself, so asking here would encode every answer once more for nothing but this number.
    bytes: body?._tag === "Uint8Array" ? body.contentLength : body?._tag === "Empty" ? 0 : length !== undefined ? Number(length) : null,
    tenant_id: facts.tenant_id, key_prefix: facts.key_prefix
  })
}

/**
 * What every answer of the server gets, around everything else (the error shape and metrics run inside): an
 * X-Request-Id (the caller's when well-formed, else a new one), also as `error.request_id` in error bodies and as
 * `request_id` on every log line written while handling the request; a 405 with Allow for a known path asked with
 * another method; and the answer of an Idempotency-Key request stored (or its key given back) as it leaves.
 */
export const requestEdge = (options: { readonly routes?: RouteTable; readonly store?: Store }) =>
  (app: Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      const requestId = requestIdOf(request.headers["x-request-id"])
      const slot = { pending: undefined as KeyOf | undefined }
      const facts: AccessFactsShape = { tenant_id: null, key_prefix: null }
      const exit = yield* app.pipe(
        Effect.provideService(IdempotencySlot, slot),
        Effect.provideService(AccessFacts, facts),
        Effect.provideService(AdmissionSlot, { admitted: false }),
        Effect.annotateLogs({ request_id: requestId }),
        // The client went away mid-request: no answer was decided, so a retry must run again.
        Effect.onInterrupt(() => Effect.andThen(
          Effect.sync(() => accessLine(requestId, request, 499, undefined, started, facts)),
          slot.pending !== undefined && options.store !== undefined ? settle(options.store, slot.pending, undefined) : Effect.void
        )),
        Effect.exit
      )
      let response = Exit.isSuccess(exit) ? exit.value : undefined
      if (response !== undefined && options.routes !== undefined && isRouteNotFound(response)) {
        response = methodNotAllowed(options.routes, request.method, request.url) ?? response
      }
      if (response !== undefined && response.headers[REPLAYED_HEADER] === undefined) response = withRequestIdInBody(response, requestId)
      if (slot.pending !== undefined && options.store !== undefined) {
        yield* settle(options.store, slot.pending, response).pipe(Effect.annotateLogs({ request_id: requestId }))
      }
      // An interrupted request has its line already (499, written as it was interrupted).
      if (!(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))) accessLine(requestId, request, response?.status ?? 500, response, started, facts)
      if (response === undefined) return yield* (exit as Exit.Exit<never, Types.unhandled>)
      return HttpServerResponse.setHeader(response, "x-request-id", requestId)
    })

const RequestIdsOnly = HttpRouter.middleware(requestEdge({}), { global: true })

/** The ingress's edge: the document's routes for the 405, and the Idempotency-Key store. */
const IngressEdge = HttpRouter.middleware(Effect.gen(function*() {
  const store = yield* IdempotencyStore
  return requestEdge({ routes: routeTable(OpenApi.fromApi(Api).paths as Record<string, Record<string, unknown>>), store })
}), { global: true })

/**
 * Metrics and the error shape with the edge around them: the edge's middleware is registered first, so it is the
 * outermost (the router applies global middleware in the order registered, the first outside).
 */
export const IngressObservability = Observability.pipe(Layer.provide(IngressEdge))
export const WorkerObservability = Observability.pipe(Layer.provide(RequestIdsOnly))
