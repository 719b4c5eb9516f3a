import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { CreateWebhookRequest, type DeliveryAttempt, UpdateWebhookRequest } from "../../schemas/webhook.ts"
import { Database } from "../../core/db/Database.ts"
import { log } from "../../core/observability/log.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import * as Repo from "../../core/webhook/repository.ts"
import { encryptSecret, generateSigningSecret } from "../../core/webhook/secrets.ts"
import { checkSubscriptionUrl, decodeCursor, encodeCursor, fieldsForCreate, fieldsForUpdate, isRefusal, isUuid } from "./subscriptionRules.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { ok } from "../http/answers.ts"
import { requestWarnings } from "../http/unknownFields.ts"

/** Subscriptions per tenant and mode: plenty for partner integrations, bounded fan-out per event. */
const MAX_SUBSCRIPTIONS = 50
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000

const notFound = (id: string) => NotFound.of(`No webhook subscription with id ${JSON.stringify(id)}`, { id: ["not found"] })
/** Logs name the host only: a path or query string may carry the partner's own tokens. */
const hostOf = (url: string) => new URL(url).host
const isoOrNull = (d: unknown) => (d ? (d as Date).toISOString() : null)

export const WebhooksLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const { sql } = yield* Database
    const config = yield* WebhookConfig
    const key = () => Redacted.value(config.encryptionKey)
    const scope = Effect.gen(function*() {
      const p = yield* CurrentPrincipal
      return { tenant_id: p.tenant_id, sandbox: p.sandbox } satisfies TenantScope
    })
    const db = <A>(f: () => Promise<A>) => Effect.promise(f)
    const urlProblem = (url: string) => db(() => checkSubscriptionUrl(url, config.allowLoopback))
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
          return ok((yield* db(() => Repo.listSubscriptions(sql, s))).map(Repo.present))
        }))
      .handle("get", ({ params }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const row = isUuid(params.id) ? yield* db(() => Repo.findSubscription(sql, s, params.id)) : undefined
          if (!row) return yield* notFound(params.id)
          return ok(Repo.present(row))
        }))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const row = isUuid(params.id) ? yield* db(() => Repo.findSubscription(sql, s, params.id)) : undefined
          if (!row) return yield* notFound(params.id)
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
          const row = isUuid(params.id) ? yield* db(() => Repo.findSubscription(sql, s, params.id)) : undefined
          if (!row) return yield* notFound(params.id)
          const limit = query.limit === undefined ? 20 : Number(query.limit)
          if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
            return yield* ValidationFailed.of("Invalid request: limit must be an integer from 1 to 100", { limit: ["must be an integer from 1 to 100"] })
          }
          const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
          if (query.cursor !== undefined && before === undefined) {
            return yield* ValidationFailed.of("Invalid request: cursor is not one this API returned", { cursor: ["is not a cursor this API returned"] })
          }
          const rows = yield* db(() => Repo.listDeliveries(sql, row.id, limit, before))
          const page = rows.slice(0, limit)
          const hasMore = rows.length > limit
          return {
            success: true as const,
            data: page.map((d) => ({
              id: d.id as string,
              event_id: d.event_id as string,
              event_type: d.event_type as string,
              attempt: d.attempt as number,
              outcome: d.outcome as DeliveryAttempt["outcome"],
              response_status: d.response_status as number | null,
              error: d.error as string | null,
              duration_ms: d.duration_ms as number,
              next_attempt_at: isoOrNull(d.next_attempt_at),
              attempted_at: (d.attempted_at as Date).toISOString()
            })),
            has_more: hasMore,
            next_cursor: hasMore ? encodeCursor(page[page.length - 1]!.position as string) : null
          }
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
