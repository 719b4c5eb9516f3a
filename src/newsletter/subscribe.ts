import { Effect, Option, Redacted } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { randomBytes } from "node:crypto"
import { NewsletterProtocol, SubscribeRefused } from "../../actors/newsletter/protocol.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { confirmEmail } from "../../core/newsletter/confirmEmail.ts"
import { CONFIRM_TTL_MS, confirmToken } from "../../core/newsletter/confirmToken.ts"
import { normaliseEmail } from "../../core/normalise/index.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { TURNSTILE_ACTION, type SubscribeRequest } from "../../schemas/newsletter.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered } from "../http/answers.ts"
import { statusOf } from "../../schemas/errors.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { TurnstileVerifier } from "./TurnstileVerifier.ts"
import { coreErrorResponse } from "../http/errorShape.ts"
import { makeSubjectCheck } from "../privacy/subjectCheck.ts"
import { widgetCaller } from "./widgetCaller.ts"

const PENDING_MESSAGE = "Check your inbox to confirm your subscription"

const accepted = (status: "pending" | "subscribed", headers: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe({
    success: true,
    data: { status, message: status === "pending" ? PENDING_MESSAGE : "You are already subscribed" }
  }, { status: 202, headers })

/**
 * A sign-up, judged in the order a widget's mistakes are cheapest to report: caller (key, origin, widget on), consent,
 * honeypot (a filled one is answered like a success and nothing is stored), address, hotel, bot check (browsers only),
 * a privacy suppression (answered like the honeypot); then the newsletter actor records it and queues the confirmation
 * email. Every answer carries the CORS headers.
 */
export const subscribe = Effect.fn("Newsletter.subscribe")(function*(payload: SubscribeRequest) {
  const request = yield* HttpServerRequest.HttpServerRequest
  const caller = yield* widgetCaller(request)
  if (HttpServerResponse.isHttpServerResponse(caller)) return caller
  const { settings, headers } = caller
  const scope = settings.scope
  const refuse = (status: number, code: string, message: string, details: Record<string, unknown> = {}, extra: Record<string, string> = {}) =>
    coreErrorResponse(status, code, message, details, { ...headers, ...extra })

  if (payload.consent !== true) return refuse(422, "CONSENT_REQUIRED", "Consent is required to subscribe", { consent: ["must be true"] })
  if (payload._hp !== undefined && payload._hp !== "") {
    yield* Effect.logInfo("newsletter honeypot filled: answered as a success, nothing stored").pipe(Effect.annotateLogs({ tenant_id: scope.tenant_id }))
    return accepted("pending", headers)
  }
  const address = normaliseEmail(payload.email)
  if (!address.ok && !(address.reason === "placeholder" && address.kind === "role")) {
    return refuse(400, "VALIDATION_ERROR", "Invalid request: email is not a valid address", { email: ["must be a valid email address"] })
  }
  const email = address.ok ? address.email : payload.email.trim().toLowerCase()
  if (payload.hotel_id !== undefined) {
    const hotel = yield* (yield* Hotels).resolve(scope.tenant_id, { hotel_id: payload.hotel_id })
    if (!hotel.found) return refuse(422, "HOTEL_UNKNOWN", `No hotel with id ${JSON.stringify(payload.hotel_id)} in this account`, { hotel_id: ["is not a hotel of this account"] })
  }
  const ip = Option.getOrNull(request.remoteAddress)
  if (caller.kind === "browser" && settings.bot_check) {
    const secret = settings.secret()
    if (payload.turnstile_token === undefined || payload.turnstile_token === "" || secret === undefined) {
      return refuse(403, "BOT_CHECK_FAILED", "The bot check was not passed", { error_codes: ["missing-input-response"] })
    }
    const verdict = yield* (yield* TurnstileVerifier).verify({
      secret, token: payload.turnstile_token, remoteip: ip, action: TURNSTILE_ACTION,
      hostnames: settings.allowed_origins.map((o) => new URL(o).hostname)
    })
    if (verdict.kind === "unavailable") {
      return refuse(503, "BOT_CHECK_UNAVAILABLE", "The bot check could not be verified just now; retry after Retry-After seconds", { retry_after_seconds: 5 }, { "retry-after": "5" })
    }
    if (verdict.kind === "failed") return refuse(403, "BOT_CHECK_FAILED", "The bot check was not passed", { error_codes: verdict.error_codes })
  }

  if (yield* (yield* makeSubjectCheck).isSuppressed(scope, { email })) {
    // Answered as the honeypot is, and for the same reason: a public widget must not tell anyone which addresses are
    // suppressed (issue 26). Nothing is stored and no confirmation email leaves.
    return accepted("pending", headers)
  }
  const subscriptionId = deterministicId(`newsletter:${scope.tenant_id}:${scope.sandbox}:${email}`)
  const nonce = randomBytes(16).toString("base64url")
  const key = Redacted.value((yield* WebhookConfig).encryptionKey)
  const token = confirmToken(key, { ...scope, subscription_id: subscriptionId, nonce, exp: Date.now() + CONFIRM_TTL_MS })
  const link = `${(yield* MessagingConfig).publicBaseUrl}/api/public/newsletter/confirm?token=${token}`
  const firstName = settings.first_name && payload.first_name !== undefined && payload.first_name.trim() !== "" ? payload.first_name.trim() : undefined
  const language = payload.language?.toLowerCase().replace("_", "-")
  const actors = yield* ActorClient
  const outcome = yield* answered(actors.for(NewsletterProtocol, scope).subscribe({
    subscription_id: subscriptionId, email, caller: caller.kind, ip, user_agent: request.headers["user-agent"]?.slice(0, 500) ?? null,
    origin: caller.origin, nonce, confirmation: confirmEmail(link, firstName),
    ...(firstName === undefined ? {} : { first_name: firstName }),
    ...(language === undefined ? {} : { language }),
    ...(payload.hotel_id === undefined ? {} : { hotel_id: payload.hotel_id.toLowerCase() }),
    ...(payload.source === undefined ? {} : { source: payload.source }),
    ...(payload.consent_text === undefined ? {} : { consent_text: payload.consent_text })
  })).pipe(Effect.map((o) => ({ ok: true as const, o })), Effect.catch((e) => Effect.succeed({ ok: false as const, e })))
  if (!outcome.ok) {
    const e = outcome.e
    if (e instanceof SubscribeRefused) return refuse(422, e.code, e.message, { [e.field]: [e.message] })
    // A 503 carries Retry-After (coreErrorResponse adds it).
    return refuse(statusOf(e), e.error.code, e.error.message, e.error.details)
  }
  return accepted(outcome.o.status, headers)
})
