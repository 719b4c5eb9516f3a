import { createHash, randomUUID } from "node:crypto"
import { Clock, Context, Effect, Layer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Principal } from "../../../schemas/api.ts"
import { honoursIdempotencyKey, IDEMPOTENCY_KEY_PATTERN } from "../../../schemas/idempotency.ts"
import { coreErrorResponse } from "../errorShape.ts"
import { IdempotencyStore, type KeyOf, type StoredAnswer } from "./IdempotencyStore.ts"

/** How long a retry waits for the same request still running under its key before it is told to come back. */
const WAIT_MS = 10_000
const POLL_MS = 100

/**
 * Per request, set by the edge (src/http/requestEdge.ts): the key this request holds once it runs, so the edge stores
 * the answer as it leaves (errors rendered, bytes final) or gives the key back. Undefined outside the edge.
 */
export interface IdempotencySlotShape {
  pending: KeyOf | undefined
}
export const IdempotencySlot = Context.Reference<IdempotencySlotShape | undefined>("app/http/IdempotencySlot", { defaultValue: () => undefined })

export const REPLAYED_HEADER = "idempotent-replayed"

/** "The same request": method, path with query, and the raw body. */
const requestHash = (method: string, url: string, body: Uint8Array) =>
  createHash("sha256").update(`${method}\n${url}\n`).update(body).digest()

const badKey = () =>
  coreErrorResponse(400, "VALIDATION_ERROR", "Idempotency-Key must be 1 to 255 printable ASCII characters", {
    "Idempotency-Key": ["must be 1 to 255 printable ASCII characters"]
  })
const conflict = () =>
  coreErrorResponse(409, "IDEMPOTENCY_CONFLICT", "This Idempotency-Key was used for another request in the last 24 hours: use a new key for a new request", {
    "Idempotency-Key": ["used for another request (method, path or body)"]
  })
const inProgress = () =>
  coreErrorResponse(409, "IDEMPOTENCY_IN_PROGRESS", "A request with this Idempotency-Key is still running: retry after Retry-After seconds", {
    "Idempotency-Key": ["a request with this key is still running"]
  }, { "retry-after": "1" })

export const replayOf = (answer: StoredAnswer) => {
  const { "content-type": contentType, ...headers } = answer.headers
  return HttpServerResponse.uint8Array(answer.body, {
    status: answer.status,
    ...(contentType === undefined ? {} : { contentType }),
    headers: { ...headers, [REPLAYED_HEADER]: "true" }
  })
}

/**
 * Idempotency-Key on the POSTs that honour it (schemas/idempotency.ts), run by the API-key authentication once the
 * key, its scope and its rate limit passed: a replay is answered only to a caller that could make the request. The
 * first request with a key runs; a retry of the same request gets its answer again; another request with the key is a
 * 409; a retry while the first still runs waits for its answer (up to 10 s), as a client retrying on a timeout expects.
 */
export class Idempotency extends Context.Service<Idempotency, {
  readonly guard: <E, R>(
    principal: Principal,
    endpoint: { readonly method: string; readonly path: string },
    handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>
}>()("app/http/Idempotency") {
  static readonly layer = Layer.effect(Idempotency, Effect.gen(function*() {
    const store = yield* IdempotencyStore
    const guard = <E, R>(
      principal: Principal,
      endpoint: { readonly method: string; readonly path: string },
      handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) => Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = request.headers["idempotency-key"]
      const slot = yield* IdempotencySlot
      if (header === undefined || slot === undefined || !honoursIdempotencyKey(endpoint.method, endpoint.path, true)) return yield* handler
      if (!IDEMPOTENCY_KEY_PATTERN.test(header)) return badKey()
      // The body as the handler reads it next (cached), within the endpoint's body limit (BodyLimits runs outside).
      const body = new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
      const hash = requestHash(request.method, request.url, body)
      const key: KeyOf = { scope: { tenant_id: principal.tenant_id, sandbox: principal.sandbox }, key: header, owner: randomUUID() }
      const deadline = (yield* Clock.currentTimeMillis) + WAIT_MS
      for (;;) {
        const claim = yield* store.claim(key, hash)
        if (claim._tag === "Claimed") {
          slot.pending = key
          return yield* handler
        }
        if (!claim.sameRequest) return conflict()
        if (claim._tag === "Answered") return replayOf(claim.answer)
        if ((yield* Clock.currentTimeMillis) >= deadline) return inProgress()
        yield* Effect.sleep(POLL_MS)
      }
    }).pipe(Effect.withSpan("Idempotency.guard"))
    return Idempotency.of({ guard })
  }))
}
