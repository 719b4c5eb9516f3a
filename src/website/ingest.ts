import { ByteSize, Effect, Option } from "effect"
import { HttpIncomingMessage, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { WebsiteProtocol } from "../../actors/website/protocol.ts"
import { Database } from "../../core/db/Database.ts"
import { errorText } from "../../core/observability/log.ts"
import { envelopeOf } from "../../core/website/contract.ts"
import { verifySignature } from "../../core/website/credentials.ts"
import { applyMapping, type MappingWarning } from "../../core/website/mapping.ts"
import { ActorClient, isRetryableCallFailure } from "../../streams/ActorClient.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { makeSubjectCheck } from "../privacy/subjectCheck.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { type EventResult, requestError, type RequestErrorCode, resultOf, statusOfCode } from "./answers.ts"
import { logDelivery } from "./deliveryLog.ts"
import { judgeOne } from "./judge.ts"
import { Catalogue } from "./Catalogue.ts"
import type { Credential } from "./WebSources.ts"
import { noteCredential } from "../http/accessFacts.ts"
import { RETRY_AFTER_S } from "../http/answers.ts"

export const SERVER_BODY_LIMIT = 64 * 1024
export const WEBHOOK_BODY_LIMIT = 256 * 1024
/** Requests a minute from one visitor (IP address and user agent) with a browser key. */
export const VISITOR_LIMIT_PER_MINUTE = 120

export interface Ingest {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly credential: Credential
  readonly headers: Record<string, string>
  readonly maxBytes: number
  /** A webhook: a JSON array is a batch, the source's mapping applies, and its signature is checked. */
  readonly webhook: boolean
  readonly test: boolean
  readonly origin: string | undefined
}

const readBody = (request: HttpServerRequest.HttpServerRequest, max: number) =>
  Number(request.headers["content-length"] ?? 0) > max
    ? Effect.succeed(undefined)
    : request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(max)),
      Effect.map((b) => (b.byteLength > max ? undefined : new Uint8Array(b))),
      Effect.orElseSucceed(() => undefined)
    )

const ACCEPTED_TYPES = /^(application\/json|text\/plain)\s*(;.*)?$/i

/**
 * A request tied to a source, from the source's state to the Result: disabled or switched off, origin (browser key),
 * rate limits, body size, signature (webhook), JSON, the envelope, then each event judged on its own. Every answer is
 * recorded in the source's delivery log.
 */
export const ingest = Effect.fn("Website.ingest")(function*(i: Ingest) {
  const { sql } = yield* Database
  const limiter = yield* RateLimiter
  const hotels = yield* Hotels
  const actors = yield* ActorClient
  const catalogue = yield* Catalogue
  const { request, credential, headers } = i
  const source = credential.source
  const ip = Option.getOrNull(request.remoteAddress)
  const userAgent = request.headers["user-agent"] ?? null
  let body: Uint8Array | undefined
  const log = (status: number, code: string | null, result?: ReturnType<typeof resultOf>) =>
    Effect.tryPromise(() => logDelivery(sql, {
      credential, status, error_code: code, origin: i.origin ?? null, ip, user_agent: userAgent, body, test: i.test, result
    })).pipe(Effect.catch((e) => Effect.logWarning("website delivery log write failed").pipe(Effect.annotateLogs({ error: errorText(e) }))))
  const fail = (code: RequestErrorCode, detail?: string, retryAfter?: number, extra: Record<string, string> = {}) =>
    log(statusOfCode(code), code).pipe(Effect.as(requestError(code, { ...headers, ...extra }, detail, retryAfter)))

  yield* noteCredential(source.scope.tenant_id, null)
  if (source.feature_disabled) return yield* fail("feature_disabled")
  if (source.disabled) return yield* fail("source_disabled")
  if (credential.kind === "browser" && (i.origin === undefined || !source.allowed_origins.includes(i.origin))) {
    return yield* fail("origin_not_allowed", i.origin === undefined ? "a browser key needs an Origin header" : `${i.origin} is not in the source's allowed_origins`)
  }
  const rate = yield* limiter.take(`web:${source.id}`, source.rate_limit_per_minute)
  const rateHeaders = { "x-ratelimit-limit": String(rate.limit), "x-ratelimit-remaining": String(rate.remaining), "x-ratelimit-reset": String(rate.resetAfter) }
  if (!rate.allowed) return yield* fail("rate_limited", `at most ${rate.limit} requests a minute for this source`, rate.retryAfter, rateHeaders)
  if (credential.kind === "browser") {
    const visitor = yield* limiter.take(`webv:${source.id}:${ip}:${userAgent}`, VISITOR_LIMIT_PER_MINUTE)
    if (!visitor.allowed) return yield* fail("rate_limited", `at most ${VISITOR_LIMIT_PER_MINUTE} requests a minute per visitor`, visitor.retryAfter, rateHeaders)
  }
  const type = request.headers["content-type"]
  if (type !== undefined && !ACCEPTED_TYPES.test(type)) return yield* fail("invalid_body", "send the body as application/json or text/plain")
  body = yield* readBody(request, i.maxBytes)
  if (body === undefined) return yield* fail("body_too_large", `at most ${i.maxBytes / 1024} KB`)
  if (i.webhook && source.secrets.length > 0) {
    const verdict = verifySignature(request.headers["x-svc-signature"], body, source.secrets, Math.floor(Date.now() / 1000))
    if (verdict !== "ok") return yield* fail(verdict)
  }
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(body).toString("utf8"))
  } catch {
    return yield* fail("invalid_json")
  }
  const envelope = envelopeOf(json, i.webhook)
  if (envelope.kind === "error") return yield* fail(envelope.code, envelope.detail)
  const items = envelope.kind === "single" ? [envelope.item] : envelope.items
  const judging = {
    source, hotels, actor: actors.for(WebsiteProtocol, source.scope), subjects: yield* makeSubjectCheck, now: Date.now(), test: i.test, ip, userAgent
  }
  const candidates = items.map((raw) => {
    if (!i.webhook) return { candidate: raw, warnings: undefined }
    return source.mapping === null ? { candidate: raw, warnings: [] as ReadonlyArray<MappingWarning> } : applyMapping(source.mapping, raw)
  })
  const judged = yield* Effect.forEach(candidates, (c, index) => judgeOne(judging, c.candidate, index, c.warnings), { concurrency: "unbounded" })
    .pipe(Effect.result)
  if (judged._tag === "Failure") {
    // Shed by the admission limit, or not confirmed in time: a 503 to retry, as the core API answers it (ADR 0013), not
    // a 500 that pages an operator for an overload the platform handled as designed.
    const passing = isRetryableCallFailure(judged.failure)
    yield* Effect.logWarning(passing ? "website events not confirmed" : "website events failed").pipe(Effect.annotateLogs({ error: errorText(judged.failure) }))
    return yield* fail(passing ? "unavailable" : "internal_error", "retry the same request: events already applied are answered duplicate", RETRY_AFTER_S)
  }
  const results: ReadonlyArray<EventResult> = judged.success
  const result = resultOf(results)
  const status = envelope.kind === "single" && results[0]!.status === "rejected" ? 422 : 202
  yield* log(status, null, result)
  yield* catalogue.seen(source, results.flatMap((r, n) => (r.status !== "rejected" && r.code !== "test_event" ? [eventNameOf(candidates[n]!.candidate)] : [])).filter((e): e is string => e !== undefined))
  return HttpServerResponse.jsonUnsafe(result, { status, headers: { ...headers, ...rateHeaders } })
})

const eventNameOf = (raw: unknown): string | undefined =>
  typeof raw === "object" && raw !== null && typeof (raw as Record<string, unknown>)["event"] === "string" ? (raw as Record<string, string>)["event"] : undefined
