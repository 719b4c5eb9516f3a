import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ActorClient } from "../../streams/ActorClient.ts"
import { Database } from "../../core/db/Database.ts"
import { errorText } from "../../core/observability/log.ts"
import { normaliseOrigin } from "../../core/website/credentials.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { Suppressions } from "../privacy/Suppressions.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { DOCS, echoedOrigin, PREFLIGHT_HEADERS, requestError, type RequestErrorCode, WEBSITE_EVENTS_PATH } from "./answers.ts"
import { Catalogue } from "./Catalogue.ts"
import { errorsPageResponse } from "./errorsPage.ts"
import { ingest, SERVER_BODY_LIMIT, WEBHOOK_BODY_LIMIT } from "./ingest.ts"
import { WebSources } from "./WebSources.ts"

export const WEBSITE_HOOKS_PATH = "/api/v1/website-events/hooks/:token"

/**
 * Raw routes, outside HttpApi on purpose: a browser beacon posts `text/plain` (no preflight), the webhook signature is
 * over the exact raw bytes, the bodies have their own limits (64 KB / 256 KB) and answers their own error shape
 * `{ error: { code, message, detail?, fix, docs } }` with CORS on every answer, errors included.
 */
const originOf = (request: HttpServerRequest.HttpServerRequest) => {
  const raw = request.headers["origin"]
  return raw === undefined || raw === "null" ? undefined : normaliseOrigin(raw)
}

const echo = (request: HttpServerRequest.HttpServerRequest) => echoedOrigin(request.headers["origin"])

const preflight = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const sources = yield* WebSources
  const origin = originOf(request)
  const listed = origin === undefined ? false : yield* sources.originListed(origin)
  return HttpServerResponse.empty({ status: 204, headers: listed ? { ...echo(request), ...PREFLIGHT_HEADERS } : {} })
})

const postEvents = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const sources = yield* WebSources
  const headers = echo(request)
  const url = new URL(request.url, "http://localhost")
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers["authorization"] ?? "")?.[1]
  const key = bearer ?? request.headers["x-svc-key"] ?? url.searchParams.get("key") ?? undefined
  const credential = key === undefined ? undefined : yield* sources.authenticate(key)
  // A server key travels only as a Bearer token (never in a page's header or URL); the webhook token only in its path.
  if (credential === undefined || credential.kind === "webhook" || (credential.kind === "server" && bearer === undefined)) {
    return requestError("unauthorized", headers)
  }
  return yield* ingest({
    request, credential, headers, maxBytes: SERVER_BODY_LIMIT, webhook: false, test: false, origin: originOf(request)
  })
})

const hookCredential = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* HttpRouter.params
  const sources = yield* WebSources
  const token = params["token"] ?? ""
  const credential = /^svc_wh_[0-9A-Za-z]{20,100}$/.test(token) ? yield* sources.authenticate(token) : undefined
  return { request, credential: credential?.kind === "webhook" ? credential : undefined }
})

const hookTest = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "http://localhost").searchParams.get("test") === "1"

const postHook = Effect.gen(function*() {
  const { request, credential } = yield* hookCredential
  if (credential === undefined) return requestError("unauthorized", {})
  return yield* ingest({
    request, credential, headers: {}, maxBytes: WEBHOOK_BODY_LIMIT, webhook: true, test: hookTest(request), origin: originOf(request)
  })
})

/** The readiness answer: 200 when a POST would be accepted, else the 401 or 403 a POST would get; takes no event. */
const getHook = Effect.gen(function*() {
  const { request, credential } = yield* hookCredential
  const refusal: RequestErrorCode | undefined = credential === undefined ? "unauthorized"
    : credential.source.feature_disabled ? "feature_disabled" : credential.source.disabled ? "source_disabled" : undefined
  if (refusal !== undefined) return requestError(refusal, {})
  return HttpServerResponse.jsonUnsafe({
    ready: true,
    accepts: "application/json: one object (or an array of up to 50), at most 256 KB",
    signature_required: credential!.source.secrets.length > 0,
    ...(hookTest(request) ? { test: true } : {}),
    docs: DOCS
  })
})

/** Any fault past authentication is an internal_error (retry with the same idempotency_key), never a 5xx of another shape. */
const guarded = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    return yield* effect.pipe(Effect.catchCause((cause) =>
      Effect.logWarning("website events request failed").pipe(
        Effect.annotateLogs({ cause: errorText(cause) }),
        Effect.as(requestError("internal_error", echo(request), undefined, 2))
      )))
  })

/** The routes, with the services they use taken when the server is built (not per request). */
export const WebsiteEventRoutes = HttpRouter.addAll(Effect.gen(function*() {
  const services = yield* Effect.all({
    actors: ActorClient, db: Database, limiter: RateLimiter, hotels: Hotels, sources: WebSources, catalogue: Catalogue,
    suppressions: Suppressions
  })
  const provide = <E, R>(e: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    guarded(e).pipe(
      Effect.provideService(ActorClient, services.actors), Effect.provideService(Database, services.db),
      Effect.provideService(RateLimiter, services.limiter), Effect.provideService(Hotels, services.hotels),
      Effect.provideService(WebSources, services.sources), Effect.provideService(Catalogue, services.catalogue),
      Effect.provideService(Suppressions, services.suppressions)
    )
  return [
    HttpRouter.route("OPTIONS", WEBSITE_EVENTS_PATH, provide(preflight)),
    HttpRouter.route("POST", WEBSITE_EVENTS_PATH, provide(postEvents)),
    HttpRouter.route("GET", WEBSITE_HOOKS_PATH, provide(getHook)),
    HttpRouter.route("POST", WEBSITE_HOOKS_PATH, provide(postHook)),
    HttpRouter.route("GET", DOCS, Effect.sync(errorsPageResponse))
  ]
}))
