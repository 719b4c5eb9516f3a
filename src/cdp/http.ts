import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createHash } from "node:crypto"
import { VisitorProtocol } from "../../actors/cdp/protocol.ts"
import { identityOf } from "../../core/cdp/identify.ts"
import { originAllowed, stripDomain } from "../../core/cdp/visit.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Api } from "../../schemas/api.ts"
import { CDP_BATCH_MAX, CDP_BULK_MAX, CdpReservationCreated, CdpReservationRequest } from "../../schemas/cdp.ts"
import { Forbidden, NotFound, Unprocessable } from "../../schemas/errors.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, batchItems, batchSizeRefused, ok } from "../http/answers.ts"
import { requestWarnings, withWarnings } from "../http/unknownFields.ts"
import { batchSummary } from "../reservation/submit.ts"
import { callerScope } from "../http/handlerContext.ts"
import { makeSubjectCheck, suppressedRefusal } from "../privacy/subjectCheck.ts"
import { createBatch, type JobItem, readBatch } from "./batches.ts"
import { CdpSettings } from "./CdpSettings.ts"
import { makeSubmitCdpReservation } from "./reservations.ts"

const hashOf = (value: unknown) => createHash("sha1").update(JSON.stringify(value)).digest("base64url")

export const CdpLive = HttpApiBuilder.group(Api, "cdp", (handlers) =>
  Effect.gen(function*() {
    const settings = yield* CdpSettings
    const actors = yield* ActorClient
    const { sql } = yield* Database
    const config = yield* AppConfig
    const submit = yield* makeSubmitCdpReservation
    const reservationItem = batchItems(CdpReservationRequest)
    const reservationWarnings = requestWarnings(CdpReservationRequest)
    const subjects = yield* makeSubjectCheck

    return handlers
      .handle("getSettings", () => Effect.flatMap(callerScope, settings.get).pipe(Effect.map(ok)))
      .handle("updateSettings", ({ payload }) => Effect.flatMap(callerScope, (s) => settings.update(s, payload)).pipe(Effect.map(ok)))
      .handle("events", ({ payload, headers }) =>
        Effect.gen(function*() {
          const scope = yield* callerScope
          const current = yield* settings.get(scope)
          if (!current.visitor_tracking) {
            return yield* Forbidden.of("Visitor tracking is off for this account: PATCH /api/v1/cdp/settings { visitor_tracking: true } first",
              { visitor_tracking: ["is off"] })
          }
          if (!originAllowed(headers.origin, current.allowed_domains)) {
            return yield* Forbidden.of(headers.origin === undefined
              ? "An Origin header is required: this account restricts visitor events to its allowed domains"
              : `The Origin ${JSON.stringify(headers.origin)} is not one of this account's allowed domains`, { origin: ["not an allowed domain"] })
          }
          const { accepted } = yield* answered(actors.for(VisitorProtocol, scope).track({
            visitor_id: payload.visitor_id, session_id: payload.session_id, device: payload.device ?? null, utm: payload.utm ?? null,
            referrer: payload.referrer ?? null,
            events: payload.events.map((e) => ({
              type: e.type, url: e.url === undefined ? null : stripDomain(e.url), title: e.title ?? null,
              data: (e.data as Record<string, unknown> | undefined) ?? null, ts: e.ts, dedupe_key: hashOf([payload.session_id, e])
            }))
          }))
          return ok({ accepted })
        }))
      .handle("identify", ({ payload }) =>
        Effect.gen(function*() {
          const scope = yield* callerScope
          const identity = identityOf(payload)
          if (!identity.ok) {
            return yield* Unprocessable.of(identity.code, identity.code === "NOT_A_PERSON"
              ? "No usable identifier: the email or phone identifies no person"
              : "No usable identifier: send a valid email or phone", identity.details)
          }
          // Refused like an identifier that names no person (422): the answer has no way to say "left out", and the
          // SDK has nothing to retry. Nothing is linked or stored.
          if (yield* subjects.isSuppressed(scope, identity)) return yield* suppressedRefusal("(body)")
          return ok(yield* answered(actors.for(VisitorProtocol, scope).identify({
            visitor_id: payload.visitor_id, session_id: payload.session_id, email: identity.email, phone: identity.phone,
            first_name: payload.first_name, last_name: payload.last_name
          })))
        }))
      .handle("reservation", ({ payload }) =>
        Effect.gen(function*() {
          const outcome = yield* submit(yield* callerScope, payload)
          const data = withWarnings(outcome.data, yield* reservationWarnings)
          return outcome.created ? new CdpReservationCreated({ success: true, data }) : ok(data)
        }))
      .handle("reservationBatch", ({ payload }) =>
        Effect.gen(function*() {
          const scope = yield* callerScope
          const items = payload.reservations
          if (items.length === 0 || items.length > CDP_BATCH_MAX) return yield* batchSizeRefused("reservations", CDP_BATCH_MAX, items.length)
          const answers = yield* Effect.forEach(items, reservationItem((r) => submit(scope, r)), { concurrency: "unbounded" })
          return ok(batchSummary(answers))
        }))
      .handle("reservationBulk", ({ payload }) =>
        Effect.gen(function*() {
          const scope = yield* callerScope
          const items = payload.reservations
          if (items.length === 0 || items.length > CDP_BULK_MAX) return yield* batchSizeRefused("reservations", CDP_BULK_MAX, items.length)
          // Each item judged now (the same decoding as a batch's): a refused one is stored failed with its error, the
          // rest as decoded (unknown keys gone), for the background job.
          const judged = yield* Effect.forEach(items, reservationItem((r) => Effect.succeed({ created: false, data: r })))
          const jobItems: Array<JobItem> = judged.map((a) => (a.success ? { payload: a.data } : { error: a.error }))
          const job = yield* Effect.orDie(Effect.tryPromise(() => createBatch(sql, scope, config.namespace, jobItems, payload.idempotency_key)))
          const url = `/api/v1/cdp/batches/${job.batch_id}`
          yield* HttpEffect.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, { location: url, "retry-after": "2" })))
          return ok({ ...job, status_url: url })
        }))
      .handle("batch", ({ params }) =>
        Effect.gen(function*() {
          const scope = yield* callerScope
          const found = yield* Effect.orDie(Effect.tryPromise(() => readBatch(sql, scope, params.id)))
          if (found === undefined) return yield* NotFound.of(`No batch ${JSON.stringify(params.id)} in this account and mode`, { id: ["not found"] })
          return ok(found)
        }))
  }))
