import { ByteSize, Effect, Redacted, Result, Schema } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHmac, timingSafeEqual } from "node:crypto"
import { MessageProtocol } from "../../actors/message/protocol.ts"
import { whatsAppByPhoneNumberId, whatsAppVerifyTokenKnown } from "../../core/channel/repository.ts"
import { Database } from "../../core/db/Database.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { WhatsAppEnvelope } from "../../schemas/whatsappWebhook.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { makeSubjectCheck } from "../privacy/subjectCheck.ts"
import { Suppressions } from "../privacy/Suppressions.ts"
import { reportsOf } from "./whatsappReports.ts"

export const WHATSAPP_WEBHOOK_PATH = "/api/webhooks/whatsapp"
/** Meta's payloads are a few kilobytes; anything far larger is not one of them. */
const MAX_BODY_BYTES = 1024 * 1024

const decodeEnvelope = Schema.decodeUnknownResult(WhatsAppEnvelope)
const text = (body: string, status: number) => HttpServerResponse.text(body, { status })
const problem = (status: number, message: string) => HttpServerResponse.jsonUnsafe({ error: { message } }, { status })

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body under the app secret>`, compared in constant time. */
export const signatureValid = (raw: Uint8Array, header: string | undefined, appSecret: string): boolean => {
  if (header === undefined || !header.startsWith("sha256=")) return false
  const given = Buffer.from(header.slice("sha256=".length), "hex")
  const expected = createHmac("sha256", appSecret).update(raw).digest()
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The subscription handshake: `hub.challenge` echoed when `hub.verify_token` is one a tenant configured. */
const handshake = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { sql } = yield* Database
  const query = new URL(request.url, "http://localhost").searchParams
  const token = query.get("hub.verify_token")
  if (query.get("hub.mode") !== "subscribe" || token === null || query.get("hub.challenge") === null) {
    return problem(400, "expected hub.mode=subscribe, hub.verify_token and hub.challenge")
  }
  const known = yield* Effect.promise(() => whatsAppVerifyTokenKnown(sql, token))
  return known ? text(query.get("hub.challenge")!, 200) : problem(403, "unknown verify token")
})

/**
 * Statuses and guests' messages. The body is verified before anything is read from it into the platform: the phone
 * number id names the tenant and the app secret that must have signed the raw bytes. A bad signature, an unknown
 * number or a malformed envelope is refused (401/400) with nothing stored. Each item then goes to the message actor,
 * and the answer is 200 only once every item was applied, so Meta's retry covers anything not confirmed.
 */
const receive = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const { sql } = yield* Database
  const webhook = yield* WebhookConfig
  const actors = yield* ActorClient
  const length = Number(request.headers["content-length"] ?? 0)
  if (length > MAX_BODY_BYTES) return problem(413, "body too large")
  // Read at most the limit (a chunked body announces no length): past it the read stops, and so does the request.
  const body = yield* request.arrayBuffer.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
    Effect.map((b) => new Uint8Array(b)),
    Effect.orElseSucceed(() => undefined)
  )
  if (body === undefined) return problem(413, "body too large")
  const raw = body
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(raw).toString("utf8"))
  } catch {
    return problem(400, "body is not JSON")
  }
  const decoded = decodeEnvelope(json)
  if (Result.isFailure(decoded)) return problem(400, "not a WhatsApp Business Account webhook envelope")
  const reports = reportsOf(decoded.success)
  if (reports.phoneNumberIds.length === 0) return problem(400, "the envelope names no phone number id")
  const key = Redacted.value(webhook.encryptionKey)
  const numbers = new Map<string, Awaited<ReturnType<typeof whatsAppByPhoneNumberId>>>()
  for (const id of reports.phoneNumberIds) numbers.set(id, yield* Effect.promise(() => whatsAppByPhoneNumberId(sql, id, key)))
  const signature = request.headers["x-hub-signature-256"]
  for (const n of numbers.values()) {
    if (n === null || !signatureValid(raw, signature, n.app_secret)) return problem(401, "signature does not verify")
  }
  if (reports.ignored.length > 0) yield* Effect.logInfo("whatsapp webhook items ignored").pipe(Effect.annotateLogs({ ignored: reports.ignored.length }))
  // A guest suppressed by a privacy request (issue 26): their messages and the statuses of what was sent to them are
  // dropped here, before anything carries their number onto a stream; no conversation or contact is made. Meta is
  // answered 200 as for any settled item (a retry could only be dropped again).
  const subjects = yield* makeSubjectCheck
  const kept = yield* Effect.filter(reports.items, ({ phoneNumberId, report }) =>
    Effect.map(subjects.isSuppressed(numbers.get(phoneNumberId)!.scope, { phone: report.phone }), (suppressed) => !suppressed))
  if (kept.length < reports.items.length) yield* Effect.logInfo("whatsapp webhook items of suppressed guests dropped").pipe(Effect.annotateLogs({ dropped: reports.items.length - kept.length }))
  const applied = yield* Effect.forEach(kept, ({ phoneNumberId, report }) => {
    const client = actors.for(MessageProtocol, numbers.get(phoneNumberId)!.scope)
    return Effect.result(report.kind === "status" ? client.status(report) : client.inbound(report))
  }, { concurrency: 16 })
  // An item refused for its data (dead-lettered at once for an operator) is as settled as an applied one: a retry by
  // Meta could only fail the same way.
  const unconfirmed = applied.filter((r) => Result.isFailure(r) && r.failure._tag !== "ActorRejected").length
  if (unconfirmed > 0) {
    yield* Effect.logWarning("whatsapp webhook not fully applied; Meta will retry").pipe(Effect.annotateLogs({ unconfirmed }))
    return problem(503, "not every item could be applied; retry")
  }
  return text("EVENT_RECEIVED", 200)
})

/** The database away (or any fault) is a 503: Meta retries, and nothing was stored. */
const or503 = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  effect.pipe(Effect.catchCause((cause) =>
    Effect.logWarning("whatsapp webhook failed").pipe(Effect.annotateLogs({ cause: String(cause) }), Effect.as(problem(503, "temporarily unavailable; retry")))))

/** The routes, with the services they use taken when the server is built (not per request). */
export const WhatsAppWebhookRoutes = HttpRouter.addAll(Effect.gen(function*() {
  const actors = yield* ActorClient
  const webhook = yield* WebhookConfig
  const suppressions = yield* Suppressions
  const withServices = <E, R>(e: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    e.pipe(Effect.provideService(ActorClient, actors), Effect.provideService(WebhookConfig, webhook), Effect.provideService(Suppressions, suppressions))
  return [
    HttpRouter.route("GET", WHATSAPP_WEBHOOK_PATH, withServices(or503(handshake))),
    HttpRouter.route("POST", WHATSAPP_WEBHOOK_PATH, withServices(or503(receive)))
  ]
}))
