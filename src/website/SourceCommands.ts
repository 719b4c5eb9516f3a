// The website sources' commands, shared by the API (core key, website_sources:manage) and `gep web-source`.
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { Database } from "../../core/db/Database.ts"
import { log } from "../../core/observability/log.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { generateWebSigningSecret, type KeyKind, MAX_LIVE_KEYS, normaliseOrigin } from "../../core/website/credentials.ts"
import { mappingIssues } from "../../core/website/mapping.ts"
import { encryptSourceSecret } from "../../core/website/secrets.ts"
import { Conflict, NotFound, ValidationFailed } from "../../schemas/errors.ts"
import type { CreateSourceRequest, PatchSourceRequest } from "../../schemas/websiteSourceApi.ts"
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


/** What the source commands need: the database, the at-rest key of signing secrets, the public base URL. */
export interface SourceContext {
  readonly sql: Database["Service"]["sql"]
  readonly key: Buffer
  readonly baseUrl: string
}

const db = <A>(f: () => Promise<A>) => Effect.promise(f)
const owned = (ctx: SourceContext, scope: TenantScope, id: string) => Effect.gen(function*() {
  const row = yield* db(() => Repo.findSource(ctx.sql, scope, id))
  if (row === undefined) return yield* notFound(id)
  return row
})
const view = (ctx: SourceContext, row: Record<string, any>) =>
  db(() => Repo.liveKeys(ctx.sql, row.id)).pipe(Effect.map((keys) => Repo.present(row, keys, ctx.baseUrl)))

export const createSource = Effect.fn("WebsiteSources.create")(function*(ctx: SourceContext, scope: TenantScope, payload: CreateSourceRequest) {
  const { sql } = ctx
  const fields = yield* checkFields(sql, scope, fieldsOfCreate(payload))
  const id = randomUUID()
  const secret = payload.signing === true ? generateWebSigningSecret() : undefined
  const created = yield* db(() => sql.begin(async (tx) => {
    const [row] = await Repo.insertSource(tx, scope, id, fields, secret === undefined ? null : encryptSourceSecret(ctx.key, scope, id, secret))
    const server = await Repo.insertKey(tx, scope, id, "server")
    const browser = await Repo.insertKey(tx, scope, id, "browser")
    const webhook = await Repo.insertKey(tx, scope, id, "webhook")
    return { row: row!, keys: [server, browser, webhook] }
  }))
  const [server, browser, webhook] = created.keys
  log("info", "website source created", { tenant_id: scope.tenant_id, source_id: id, signing: secret !== undefined })
  const source = Repo.present(created.row, created.keys.map((k) => k.row), ctx.baseUrl, webhook!.key)
  return {
    source_id: id, server_key: server!.key, browser_key: browser!.key, webhook_token: webhook!.key,
    webhook_url: source.webhook_url, ...(secret === undefined ? {} : { signing_secret: secret }), source
  }
})

export const listSources = (ctx: SourceContext, scope: TenantScope) =>
  db(() => Repo.listSources(ctx.sql, scope)).pipe(Effect.flatMap((rows) => Effect.forEach(rows, (r) => view(ctx, r))), Effect.map((sources) => ({ sources })))

export const getSource = (ctx: SourceContext, scope: TenantScope, id: string) => owned(ctx, scope, id).pipe(Effect.flatMap((row) => view(ctx, row)))

export const updateSource = Effect.fn("WebsiteSources.update")(function*(ctx: SourceContext, scope: TenantScope, id: string, payload: PatchSourceRequest) {
  const row = yield* owned(ctx, scope, id)
  const merged: Repo.SourceFields = {
    ...fieldsOfRow(row),
    ...Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined)) as Partial<Repo.SourceFields>
  }
  const fields = yield* checkFields(ctx.sql, scope, merged)
  const updated = yield* db(() => Repo.updateSource(ctx.sql, row.id, fields))
  if (updated === undefined) return yield* notFound(id)
  log("info", "website source updated", { tenant_id: scope.tenant_id, source_id: row.id, enabled: fields.enabled })
  return yield* view(ctx, updated)
})

export const removeSource = Effect.fn("WebsiteSources.remove")(function*(ctx: SourceContext, scope: TenantScope, id: string) {
  const row = yield* owned(ctx, scope, id)
  const deleted = yield* db(() => Repo.deleteSource(ctx.sql, row.id))
  if (deleted === undefined) return yield* notFound(id)
  return yield* view(ctx, deleted)
})

export const addKey = Effect.fn("WebsiteSources.addKey")(function*(ctx: SourceContext, scope: TenantScope, id: string, kind: KeyKind) {
  const { sql } = ctx
  const row = yield* owned(ctx, scope, id)
  const added = yield* db(() => sql.begin(async (tx) => {
    // Serialised per source: two concurrent adds cannot both see one live key.
    await tx`SELECT id FROM website_sources WHERE id = ${row.id} FOR UPDATE`
    const [n] = await tx`SELECT count(*)::int AS n FROM website_source_keys WHERE source_id = ${row.id} AND kind = ${kind} AND revoked_at IS NULL`
    return n!.n >= MAX_LIVE_KEYS ? undefined : Repo.insertKey(tx, scope, row.id, kind)
  }))
  if (added === undefined) {
    return yield* Conflict.of("KEY_LIMIT_REACHED", `A source holds at most ${MAX_LIVE_KEYS} live ${kind} keys: revoke the oldest first`, { kind: ["two live keys already"] })
  }
  return { key_id: added.row.id as string, kind, key: added.key, prefix: added.row.prefix as string, created_at: (added.row.created_at as Date).toISOString() }
})

export const revokeKey = Effect.fn("WebsiteSources.revokeKey")(function*(ctx: SourceContext, scope: TenantScope, id: string, keyId: string) {
  const row = yield* owned(ctx, scope, id)
  const [k] = /^[0-9a-f-]{36}$/i.test(keyId)
    ? yield* db(() => ctx.sql`UPDATE website_source_keys SET revoked_at = now() WHERE id = ${keyId} AND source_id = ${row.id} AND revoked_at IS NULL RETURNING id, kind, prefix, created_at`)
    : []
  if (k === undefined) return yield* NotFound.of("No live key with this id on this source", { key_id: ["not found"] })
  return { key_id: k.id as string, kind: k.kind as KeyKind, prefix: k.prefix as string, created_at: (k.created_at as Date).toISOString() }
})

export const rotateSecret = Effect.fn("WebsiteSources.rotateSecret")(function*(ctx: SourceContext, scope: TenantScope, id: string) {
  const row = yield* owned(ctx, scope, id)
  const secret = generateWebSigningSecret()
  const until = row.signing_secret_encrypted === null ? null : new Date(Date.now() + ROTATION_OVERLAP_MS)
  yield* db(() => ctx.sql`
    UPDATE website_sources SET previous_secret_encrypted = signing_secret_encrypted, previous_secret_expires_at = ${until},
      signing_secret_encrypted = ${encryptSourceSecret(ctx.key, scope, row.id, secret)}, updated_at = now()
    WHERE id = ${row.id}`)
  log("info", "website source signing secret rotated", { tenant_id: scope.tenant_id, source_id: row.id })
  return { signing_secret: secret, previous_valid_until: until?.toISOString() ?? null }
})

export const deliveries = (ctx: SourceContext, scope: TenantScope, id: string, query: { readonly limit?: string; readonly cursor?: string }) =>
  owned(ctx, scope, id).pipe(Effect.flatMap((row) => deliveryPage(ctx.sql, row.id, query)))

export const catalogue = (ctx: SourceContext, scope: TenantScope, id: string) =>
  owned(ctx, scope, id).pipe(Effect.flatMap((row) => db(() => catalogueOf(ctx.sql, row.id))), Effect.map((events) => ({ events })))

export const declare = (ctx: SourceContext, scope: TenantScope, id: string, name: string, description: string | null) =>
  owned(ctx, scope, id).pipe(Effect.flatMap((row) => db(() => declareEvent(ctx.sql, scope, row.id, name, description))))
