import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { Database } from "../../core/db/Database.ts"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { log } from "../../core/observability/log.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { generateWebSigningSecret, MAX_LIVE_KEYS, normaliseOrigin } from "../../core/website/credentials.ts"
import { mappingIssues } from "../../core/website/mapping.ts"
import { encryptSourceSecret } from "../../core/website/secrets.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { Api } from "../../schemas/api.ts"
import { Conflict, NotFound, ValidationFailed } from "../../schemas/errors.ts"
import type { CreateSourceRequest } from "../../schemas/websiteSourceApi.ts"
import { callerScope } from "../http/handlerContext.ts"
import { catalogueOf, declareEvent, deliveryPage } from "./sourceReads.ts"
import * as Repo from "./sourceRepository.ts"

const notFound = (id: string) => NotFound.of(`No website source with id ${JSON.stringify(id.slice(0, 100))}`, { id: ["not found"] })
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000

/** The fields as stored: origins normalised, hotels of this account, a mapping whose every target and rule is known. */
const checkFields = (sql: Database["Service"]["sql"], scope: TenantScope, f: Repo.SourceFields) => Effect.gen(function*() {
  const details: Record<string, Array<string>> = {}
  const origins = f.allowed_origins.map((o, i) => {
    const n = normaliseOrigin(o)
    if (n === undefined) details[`allowed_origins[${i}]`] = ["must be an exact origin: scheme://host[:port], no path, no wildcard"]
    return n ?? o
  })
  if (f.allowed_hotels.length > 0) {
    const rows = yield* Effect.promise(() => sql`SELECT id FROM hotels WHERE tenant_id = ${scope.tenant_id} AND id = ANY(${f.allowed_hotels as Array<string>}::uuid[])`)
    const known = new Set(rows.map((r) => r.id as string))
    f.allowed_hotels.forEach((h, i) => {
      if (!known.has(h.toLowerCase())) details[`allowed_hotels[${i}]`] = ["no hotel of this account has this id"]
    })
  }
  for (const issue of f.mapping === null ? [] : mappingIssues(f.mapping)) (details[issue.field] ??= []).push(issue.message)
  if (Object.keys(details).length > 0) return yield* ValidationFailed.of("Invalid request: see details", details)
  return { ...f, allowed_origins: [...new Set(origins)], allowed_hotels: f.allowed_hotels.map((h) => h.toLowerCase()) }
})

const fieldsOfCreate = (p: CreateSourceRequest): Repo.SourceFields => ({
  name: p.name, allowed_origins: p.allowed_origins, allowed_events: p.allowed_events ?? [], allowed_hotels: p.allowed_hotels ?? [],
  consent_mode: p.consent_mode ?? "honour", rate_limit_per_minute: p.rate_limit_per_minute ?? 600,
  mapping: (p.mapping as Record<string, unknown> | undefined) ?? null, enabled: true
})

const fieldsOfRow = (r: Record<string, any>): Repo.SourceFields => ({
  name: r.name, allowed_origins: r.allowed_origins, allowed_events: r.allowed_events, allowed_hotels: r.allowed_hotels,
  consent_mode: r.consent_mode, rate_limit_per_minute: r.rate_limit_per_minute, mapping: r.mapping ?? null, enabled: r.enabled
})

export const WebsiteSourcesLive = HttpApiBuilder.group(Api, "websiteSources", (handlers) =>
  Effect.gen(function*() {
    const { sql } = yield* Database
    const config = yield* WebhookConfig
    const { publicBaseUrl } = yield* MessagingConfig
    const key = () => Redacted.value(config.encryptionKey)
    const db = <A>(f: () => Promise<A>) => Effect.promise(f)
    const owned = (id: string) => Effect.gen(function*() {
      const scope = yield* callerScope
      const row = yield* db(() => Repo.findSource(sql, scope, id))
      if (row === undefined) return yield* notFound(id)
      return { scope, row }
    })
    const view = (row: Record<string, any>) => db(() => Repo.liveKeys(sql, row.id)).pipe(Effect.map((keys) => Repo.present(row, keys, publicBaseUrl)))

    return handlers
      .handle("create", ({ payload }) => Effect.gen(function*() {
        const scope = yield* callerScope
        const fields = yield* checkFields(sql, scope, fieldsOfCreate(payload))
        const id = randomUUID()
        const secret = payload.signing === true ? generateWebSigningSecret() : undefined
        const created = yield* db(() => sql.begin(async (tx) => {
          const [row] = await Repo.insertSource(tx, scope, id, fields, secret === undefined ? null : encryptSourceSecret(key(), scope, id, secret))
          const server = await Repo.insertKey(tx, scope, id, "server")
          const browser = await Repo.insertKey(tx, scope, id, "browser")
          const webhook = await Repo.insertKey(tx, scope, id, "webhook")
          return { row: row!, keys: [server, browser, webhook] }
        }))
        const [server, browser, webhook] = created.keys
        log("info", "website source created", { tenant_id: scope.tenant_id, source_id: id, signing: secret !== undefined })
        const source = Repo.present(created.row, created.keys.map((k) => k.row), publicBaseUrl, webhook!.key)
        return {
          source_id: id, server_key: server!.key, browser_key: browser!.key, webhook_token: webhook!.key,
          webhook_url: source.webhook_url, ...(secret === undefined ? {} : { signing_secret: secret }), source
        }
      }))
      .handle("list", () => Effect.gen(function*() {
        const scope = yield* callerScope
        const rows = yield* db(() => Repo.listSources(sql, scope))
        return { sources: yield* Effect.forEach(rows, view) }
      }))
      .handle("get", ({ params }) => owned(params.id).pipe(Effect.flatMap(({ row }) => view(row))))
      .handle("update", ({ params, payload }) => Effect.gen(function*() {
        const { scope, row } = yield* owned(params.id)
        const merged: Repo.SourceFields = {
          ...fieldsOfRow(row),
          ...Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined)) as Partial<Repo.SourceFields>
        }
        const fields = yield* checkFields(sql, scope, merged)
        const updated = yield* db(() => Repo.updateSource(sql, row.id, fields))
        if (updated === undefined) return yield* notFound(params.id)
        log("info", "website source updated", { tenant_id: scope.tenant_id, source_id: row.id, enabled: fields.enabled })
        return yield* view(updated)
      }))
      .handle("remove", ({ params }) => Effect.gen(function*() {
        const { row } = yield* owned(params.id)
        const deleted = yield* db(() => Repo.deleteSource(sql, row.id))
        if (deleted === undefined) return yield* notFound(params.id)
        return yield* view(deleted)
      }))
      .handle("addKey", ({ params, payload }) => Effect.gen(function*() {
        const { scope, row } = yield* owned(params.id)
        const added = yield* db(() => sql.begin(async (tx) => {
          // Serialised per source: two concurrent adds cannot both see one live key.
          await tx`SELECT id FROM website_sources WHERE id = ${row.id} FOR UPDATE`
          const [n] = await tx`SELECT count(*)::int AS n FROM website_source_keys WHERE source_id = ${row.id} AND kind = ${payload.kind} AND revoked_at IS NULL`
          return n!.n >= MAX_LIVE_KEYS ? undefined : Repo.insertKey(tx, scope, row.id, payload.kind)
        }))
        if (added === undefined) {
          return yield* Conflict.of("KEY_LIMIT_REACHED", `A source holds at most ${MAX_LIVE_KEYS} live ${payload.kind} keys: revoke the oldest first`, { kind: ["two live keys already"] })
        }
        return { key_id: added.row.id as string, kind: payload.kind, key: added.key, prefix: added.row.prefix as string, created_at: (added.row.created_at as Date).toISOString() }
      }))
      .handle("revokeKey", ({ params }) => Effect.gen(function*() {
        const { row } = yield* owned(params.id)
        const [k] = /^[0-9a-f-]{36}$/i.test(params.key_id)
          ? yield* db(() => sql`UPDATE website_source_keys SET revoked_at = now() WHERE id = ${params.key_id} AND source_id = ${row.id} AND revoked_at IS NULL RETURNING id, kind, prefix, created_at`)
          : []
        if (k === undefined) return yield* NotFound.of("No live key with this id on this source", { key_id: ["not found"] })
        return { key_id: k.id as string, kind: k.kind as "server", prefix: k.prefix as string, created_at: (k.created_at as Date).toISOString() }
      }))
      .handle("rotateSecret", ({ params }) => Effect.gen(function*() {
        const { scope, row } = yield* owned(params.id)
        const secret = generateWebSigningSecret()
        const until = row.signing_secret_encrypted === null ? null : new Date(Date.now() + ROTATION_OVERLAP_MS)
        yield* db(() => sql`
          UPDATE website_sources SET previous_secret_encrypted = signing_secret_encrypted, previous_secret_expires_at = ${until},
            signing_secret_encrypted = ${encryptSourceSecret(key(), scope, row.id, secret)}, updated_at = now()
          WHERE id = ${row.id}`)
        log("info", "website source signing secret rotated", { tenant_id: scope.tenant_id, source_id: row.id })
        return { signing_secret: secret, previous_valid_until: until?.toISOString() ?? null }
      }))
      .handle("deliveries", ({ params, query }) => Effect.gen(function*() {
        const { row } = yield* owned(params.id)
        return yield* deliveryPage(sql, row.id, query)
      }))
      .handle("catalogue", ({ params }) => Effect.gen(function*() {
        const { row } = yield* owned(params.id)
        return { events: yield* db(() => catalogueOf(sql, row.id)) }
      }))
      .handle("declare", ({ params, payload }) => Effect.gen(function*() {
        const { scope, row } = yield* owned(params.id)
        return yield* db(() => declareEvent(sql, scope, row.id, payload.name, payload.description ?? null))
      }))
  }))
