import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse, UrlParams } from "effect/http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Provider } from "oidc-provider"
import { Database } from "../../core/db/Database.ts"
import { isDatabaseAway } from "../../core/db/DatabaseFailure.ts"
import { normaliseEmail } from "../../core/normalise/index.ts"
import { OidcProvider } from "./OidcProvider.ts"
import { codePage, emailPage, messagePage } from "./pages.ts"
import { interactionPath, OIDC_PREFIX } from "./provider.ts"
import { SignInCodes } from "./SignInCodes.ts"
import { RETRY_AFTER_S } from "../http/answers.ts"
import { coreErrorResponse } from "../http/errorShape.ts"

// Everything under /api/oidc: the sign-in pages (ours) and every other path handed to oidc-provider (a Koa app) on
// the same node request and response. Effect's server writes nothing for a response already ended.

const rawOf = (request: HttpServerRequest.HttpServerRequest) => ({
  req: NodeHttpServerRequest.toIncomingMessage(request) as IncomingMessage & { originalUrl?: string },
  res: NodeHttpServerRequest.toServerResponse(request) as ServerResponse
})

const html = (status: number, body: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store", ...headers } })

const expired = html(400, messagePage("This sign-in has expired", "Start again from the hotel's website."))

/** The database away while a sign-in page is built: a page saying so, 503 with Retry-After (never "expired"). */
const withUnavailablePage = <E, R>(page: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  page.pipe(Effect.catchDefect((defect) => isDatabaseAway(defect)
    ? Effect.succeed(html(503, messagePage("Temporarily unavailable", "Try again in a moment."), { "retry-after": String(RETRY_AFTER_S) }))
    : Effect.die(defect)))

/** The provider's node handler, made once per provider instance (a key rotation brings a new instance). */
const handlers = new WeakMap<Provider, ReturnType<Provider["callback"]>>()
const handlerOf = (provider: Provider) => {
  let h = handlers.get(provider)
  if (h === undefined) handlers.set(provider, h = provider.callback())
  return h
}

/** oidc-provider answers the request itself; this fiber waits until the answer is out (or the client went away). */
const passthrough = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const provider = yield* (yield* OidcProvider).current
  const { req, res } = rawOf(request)
  yield* Effect.callback<void>((resume) => {
    req.originalUrl = req.url
    req.url = req.url!.slice(OIDC_PREFIX.length) || "/"
    res.once("close", () => resume(Effect.void))
    void handlerOf(provider)(req, res)
  })
  return HttpServerResponse.empty({ status: res.statusCode })
})

/** The interaction of the path's id, its client's tenant and name; undefined when expired or not this browser's. */
const interaction = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const uid = new URL(request.url, "http://localhost").pathname.slice(`${OIDC_PREFIX}/interaction/`.length).split("/")[0]!
  const provider = yield* (yield* OidcProvider).current
  const { req, res } = rawOf(request)
  // No interaction (expired, another browser's) is an answer; the database away is not.
  const details = yield* Effect.tryPromise({ try: () => provider.interactionDetails(req, res), catch: (e) => e }).pipe(
    Effect.map(Option.some),
    Effect.catch((e) => isDatabaseAway(e) ? Effect.die(e) : Effect.succeed(Option.none()))
  )
  if (Option.isNone(details) || details.value.uid !== uid) return undefined
  const { sql } = yield* Database
  const [client] = yield* Effect.promise(() => sql`SELECT tenant_id, sandbox, name FROM oidc_clients WHERE client_id = ${String(details.value.params.client_id)}`)
  if (client === undefined) return undefined
  return { uid, path: interactionPath(uid), provider, req, res, who: { tenant_id: client.tenant_id as string, sandbox: client.sandbox as boolean, client_name: client.name as string } }
})

const field = (name: string) => Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
  return Option.getOrElse(UrlParams.getFirst(params, name), () => "").trim()
})

/** `GET /api/oidc/interaction/{uid}`: the email form. */
const start = Effect.gen(function*() {
  const i = yield* interaction
  return i === undefined ? expired : html(200, emailPage(i.path, i.who.client_name))
})

/** `POST /api/oidc/interaction/{uid}/login` with `email`: a code to the member's address (same answer for a non-member). */
const login = Effect.gen(function*() {
  const i = yield* interaction
  if (i === undefined) return expired
  const raw = yield* field("email")
  const email = normaliseEmail(raw)
  if (!email.ok) return html(400, emailPage(i.path, i.who.client_name, "Enter a valid email address."))
  const request = yield* HttpServerRequest.HttpServerRequest
  const ip = Option.getOrElse(request.remoteAddress, () => "unknown")
  const issued = yield* (yield* SignInCodes).issue(i.uid, i.who, email.email, ip)
  if (issued.kind === "rate_limited") {
    return html(429, emailPage(i.path, i.who.client_name, `Too many codes asked for; try again in ${issued.retryAfter} s.`), { "retry-after": String(issued.retryAfter) })
  }
  if (issued.kind === "unavailable") return html(503, emailPage(i.path, i.who.client_name, "We could not send a code just now; try again in a moment."), { "retry-after": "30" })
  return html(200, codePage(i.path, email.email))
})

/** `POST /api/oidc/interaction/{uid}/otp` with `code`: the right code completes the sign-in (303 back to the provider). */
const otp = Effect.gen(function*() {
  const i = yield* interaction
  if (i === undefined) return expired
  const checked = yield* (yield* SignInCodes).check(i.uid, yield* field("code"))
  if (checked.kind === "expired") return html(400, emailPage(i.path, i.who.client_name, "That code has expired or was tried too often; ask for a new one."))
  if (checked.kind === "wrong") return html(400, codePage(i.path, "your address", `Wrong code; ${checked.attemptsLeft} tries left.`))
  const location = yield* Effect.promise(() =>
    i.provider.interactionResult(i.req, i.res, { login: { accountId: checked.member_id, amr: ["otp"] } }, { mergeWithLastSubmission: false }))
  return HttpServerResponse.empty({ status: 303, headers: { location, "cache-control": "no-store" } })
})

/**
 * `POST /api/oidc/interaction/{uid}/abort`: the member cancels; the provider sends the browser back to the client's
 * redirect_uri with `error=access_denied` (and its `state`), as OpenID Connect has a client learn of a refusal.
 */
const abort = Effect.gen(function*() {
  const i = yield* interaction
  if (i === undefined) return expired
  const location = yield* Effect.promise(() => i.provider.interactionResult(i.req, i.res,
    { error: "access_denied", error_description: "End-User aborted interaction" }, { mergeWithLastSubmission: false }))
  return HttpServerResponse.empty({ status: 303, headers: { location, "cache-control": "no-store" } })
})

/** Bodies here are a few form fields: anything over 64 KiB is refused before the provider or a page reads it. */
const MAX_BODY = 64 * 1024

const bounded = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) => Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const length = Number(request.headers["content-length"] ?? 0)
  if (length > MAX_BODY || request.headers["transfer-encoding"] !== undefined && request.method !== "GET") {
    return coreErrorResponse(413, "PAYLOAD_TOO_LARGE", `Body over ${MAX_BODY} bytes`, { max_bytes: MAX_BODY }, { connection: "close" })
  }
  return yield* handler
})

export const OidcRoutes = HttpRouter.addAll(Effect.gen(function*() {
  const services = yield* Effect.context<OidcProvider | SignInCodes | Database>()
  const withServices = (e: Effect.Effect<HttpServerResponse.HttpServerResponse, never, OidcProvider | SignInCodes | Database | HttpServerRequest.HttpServerRequest>) =>
    Effect.provideContext(bounded(e), services as never) as Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
  return [
    HttpRouter.route("GET", `${OIDC_PREFIX}/interaction/:uid`, withServices(withUnavailablePage(start))),
    HttpRouter.route("POST", `${OIDC_PREFIX}/interaction/:uid/login`, withServices(withUnavailablePage(login))),
    HttpRouter.route("POST", `${OIDC_PREFIX}/interaction/:uid/otp`, withServices(withUnavailablePage(otp))),
    HttpRouter.route("POST", `${OIDC_PREFIX}/interaction/:uid/abort`, withServices(withUnavailablePage(abort))),
    HttpRouter.route("*", `${OIDC_PREFIX}/*`, withServices(passthrough))
  ]
})).pipe(Layer.provide(SignInCodes.layer))
