import { Clock, Effect, Redacted } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { NotFound, RateLimited, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { CreateWebhookRequest, UpdateWebhookRequest } from "../../schemas/webhook.ts"
import { Database } from "../../core/db/Database.ts"
import { log } from "../../core/observability/log.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import * as Repo from "../../core/webhook/repository.ts"
import { encryptSecret, generateSigningSecret } from "../../core/webhook/secrets.ts"
import { checkSubscriptionUrl, fieldsForCreate, fieldsForUpdate, isRefusal, isUuid } from "./subscriptionRules.ts"
import { deliveryPage } from "./deliveryList.ts"
import { deliveryFilters, tenantDeliveryPage } from "./tenantDeliveries.ts"
import { replayWindow } from "./replayRules.ts"
import { WebhookSends } from "./WebhookSends.ts"
import { callerScope as scope, orDieOnDatabase } from "../http/handlerContext.ts"
import { pageRequest } from "../http/paging.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { ok } from "../http/answers.ts"
import { requestWarnings } from "../http/unknownFields.ts"

/** Subscriptions per tenant and mode: plenty for partner integrations, bounded fan-out per event. */
const MAX_SUBSCRIPTIONS = 50
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000

const notFound = (id: string) => NotFound.of(`No webhook subscription with id ${JSON.stringify(id)}`, { id: ["not found"] })
/** Logs name the host only: a path or query string may carry the partner's own tokens. */
const hostOf = (url: string) => new URL(url).host

export const WebhooksLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const { sql } = yield* Database
    const config = yield* WebhookConfig
    const key = () => Redacted.value(config.encryptionKey)
    const db = <A>(f: () => Promise<A>) => Effect.promise(f)
    const urlProblem = (url: string) => db(() => checkSubscriptionUrl(url, config.allowLoopback))
    const sends = yield* WebhookSends
    /** The caller's subscription (same tenant and mode), else 404. */
    const subscription = (s: TenantScope, id: string) =>
      Effect.gen(function*() {
        const row = isUuid(id) ? yield* db(() => Repo.findSubscription(sql, s, id)) : undefined
        if (!row) return yield* notFound(id)
        return row
      })
    const createWarnings = requestWarnings(CreateWebhookRequest)
    const updateWarnings = requestWarnings(UpdateWebhookRequest)

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const fields = fieldsForCreate(payload)
          if (isRefusal(fields)) return yield* fields
          const problem = yield* urlProblem(fields.url)
          if (problem) return yield* problem
          if ((yield* db(() => Repo.countSubscriptions(sql, s))) >= MAX_SUBSCRIPTIONS) {
            return yield* Unprocessable.of("SUBSCRIPTION_LIMIT_REACHED", `At most ${MAX_SUBSCRIPTIONS} webhook subscriptions per account and mode`)
          }
          const id = randomUUID()
          // A partner's own secret is stored and used exactly like a generated one, and not echoed: the partner has it.
          const secret = payload.secret ?? generateSigningSecret()
          const row = yield* db(() => Repo.insertSubscription(sql, s, id, fields, encryptSecret(key(), secret, id)))
          log("info", "webhook subscription created", { tenant_id: s.tenant_id, subscription_id: id, host: hostOf(row.url) })
          const warnings = yield* createWarnings
          return ok({ ...Repo.present(row), ...(payload.secret === undefined ? { secret } : {}), warnings })
        }))
      .handle("list", () =>
        Effect.gen(function*() {
          const s = yield* scope
          return ok({ webhooks: (yield* db(() => Repo.listSubscriptions(sql, s))).map(Repo.present), next_cursor: null })
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const s = yield* scope
          return ok(Repo.present(yield* subscription(s, params.id)))
        }))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const row = yield* subscription(s, params.id)
          const fields = fieldsForUpdate(row, payload)
          if (isRefusal(fields)) return yield* fields
          if (payload.url !== undefined) {
            const problem = yield* urlProblem(fields.url)
            if (problem) return yield* problem
          }
          const updated = yield* db(() => Repo.updateSubscription(sql, s, row.id, fields))
          if (!updated) return yield* notFound(params.id)
          log("info", "webhook subscription updated", { tenant_id: s.tenant_id, subscription_id: row.id, enabled: updated.enabled })
          return ok({ ...Repo.present(updated), warnings: yield* updateWarnings })
        }))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const deleted = isUuid(params.id) && (yield* db(() => Repo.deleteSubscription(sql, s, params.id)))
          if (!deleted) return yield* notFound(params.id)
          log("info", "webhook subscription deleted", { tenant_id: s.tenant_id, subscription_id: params.id })
          return ok({ id: params.id, deleted: true as const })
        }))
      .handle("rotateSecret", ({ params }) =>
        Effect.gen(function*() {
          const s = yield* scope
          if (!isUuid(params.id)) return yield* notFound(params.id)
          const secret = generateSigningSecret()
          const expires = new Date(Date.now() + ROTATION_OVERLAP_MS)
          const row = yield* db(() =>
            Repo.rotateSecret(sql, s, params.id, (current) => ({ next: encryptSecret(key(), secret, params.id), previous: current }), expires))
          if (!row) return yield* notFound(params.id)
          log("info", "webhook secret rotated", { tenant_id: s.tenant_id, subscription_id: row.id })
          return ok({ id: row.id, secret, previous_secret_expires_at: expires.toISOString() })
        }))
      .handle("deliveries", ({ params, query }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const row = yield* subscription(s, params.id)
          const request = yield* pageRequest(query)
          const page = yield* db(() => deliveryPage(sql, row.id, request))
          // has_more: the shape before the one list shape, kept one release.
          return { ...ok(page), has_more: page.next_cursor !== null }
        }))
      .handle("allDeliveries", ({ query }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const { limit: _l, cursor: _c, ...filters } = query
          const request = yield* pageRequest(query)
          const f = yield* deliveryFilters(filters)
          return ok(yield* db(() => tenantDeliveryPage(sql, s, f, request)))
        }))
      .handle("test", ({ params }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const row = yield* subscription(s, params.id)
          const sent = yield* orDieOnDatabase(sends.test(s, row.id))
          log("info", "webhook test event sent", { tenant_id: s.tenant_id, subscription_id: row.id, event_id: sent.event_id })
          return ok({ ...sent, event_type: "webhook.test" as const, subscription_id: row.id })
        }))
      .handle("resend", ({ params }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const row = yield* subscription(s, params.id)
          const resent = isUuid(params.delivery_id) ? yield* orDieOnDatabase(sends.resend(s, row.id, params.delivery_id)) : undefined
          if (!resent) {
            return yield* NotFound.of(`No delivery with id ${JSON.stringify(params.delivery_id)} of this subscription in the last 14 days`, { delivery_id: ["not found"] })
          }
          return ok({ ...resent, subscription_id: row.id })
        }))
      .handle("replay", ({ params, payload }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const row = yield* subscription(s, params.id)
          const window = replayWindow(payload, new Date(yield* Clock.currentTimeMillis))
          if (window instanceof ValidationFailed) return yield* window
          const outcome = yield* orDieOnDatabase(sends.replay(s, row.id, window))
          if (outcome.kind === "limited") {
            const seconds = String(outcome.retry_after_seconds)
            yield* HttpEffect.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeader(res, "retry-after", seconds)))
            return yield* RateLimited.of(outcome.retry_after_seconds)
          }
          log("info", "webhook replay accepted", { tenant_id: s.tenant_id, subscription_id: row.id, replay_id: outcome.replay_id, events: outcome.events })
          return ok({
            replay_id: outcome.replay_id, subscription_id: row.id, since: window.since.toISOString(), until: window.until.toISOString(),
            event_types: window.event_types, events: outcome.events
          })
        }))
      .handle("getSettings", () =>
        Effect.gen(function*() {
          const p = yield* CurrentPrincipal
          return ok(yield* db(() => Repo.readSettings(sql, p.tenant_id)))
        }))
      .handle("updateSettings", ({ payload }) =>
        Effect.gen(function*() {
          const p = yield* CurrentPrincipal
          const current = yield* db(() => Repo.readSettings(sql, p.tenant_id))
          const next = { check_in_time: payload.check_in_time ?? current.check_in_time, check_out_time: payload.check_out_time ?? current.check_out_time }
          yield* db(() => Repo.writeSettings(sql, p.tenant_id, next))
          return ok(next)
        }))
  }))
