import { Context, Effect, Layer, Redacted } from "effect"
import { Database } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { hashWebKey, type KeyKind, kindOf } from "../../core/website/credentials.ts"
import type { Mapping } from "../../core/website/mapping.ts"
import { decryptSourceSecret } from "../../core/website/secrets.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"

/** A website source as the ingress needs it, with its live signing secrets decrypted. */
export interface LiveSource {
  readonly id: string
  readonly scope: TenantScope
  readonly allowed_origins: ReadonlyArray<string>
  readonly allowed_events: ReadonlyArray<string>
  readonly allowed_hotels: ReadonlyArray<string>
  readonly consent_mode: "honour" | "ignore"
  readonly rate_limit_per_minute: number
  readonly mapping: Mapping | null
  /** Paused (`enabled: false`) or deleted: 403 source_disabled. */
  readonly disabled: boolean
  /** The account's switch: 403 feature_disabled. */
  readonly feature_disabled: boolean
  readonly secrets: ReadonlyArray<string>
}

export interface Credential {
  readonly key_id: string
  readonly kind: KeyKind
  readonly source: LiveSource
}

const CACHE_MS = 5_000
const CACHE_MAX = 10_000

/**
 * Finds the source behind a credential (server key, browser key or webhook token), read with the owner's role: the
 * request names no tenant until this answers. Lookups are reused for 5 s, which bounds how long a revoked key, a
 * paused source or a changed origin list takes to apply on one ingress.
 */
export class WebSources extends Context.Service<WebSources, {
  readonly authenticate: (key: string) => Effect.Effect<Credential | undefined>
  /** Whether any enabled source lists this origin (the CORS preflight's answer). */
  readonly originListed: (origin: string) => Effect.Effect<boolean>
}>()("app/website/WebSources") {
  static readonly layer = Layer.effect(WebSources, Effect.gen(function*() {
    const db = yield* Database
    const webhook = yield* WebhookConfig
    const cache = new Map<string, { value: Credential | undefined; until: number }>()
    const origins = new Map<string, { value: boolean; until: number }>()

    const authenticate = Effect.fn("WebSources.authenticate")(function*(key: string) {
      const kind = kindOf(key)
      if (kind === undefined) return undefined
      const hash = hashWebKey(key)
      const cacheKey = hash.toString("base64")
      const hit = cache.get(cacheKey)
      if (hit && hit.until > Date.now()) return hit.value
      const rows = yield* db.query((sql) => sql`
        SELECT k.id AS key_id, k.kind, s.id, s.tenant_id, s.sandbox, s.allowed_origins, s.allowed_events, s.allowed_hotels,
          s.consent_mode, s.rate_limit_per_minute, s.mapping, (NOT s.enabled OR s.deleted_at IS NOT NULL) AS disabled,
          NOT t.website_events_enabled AS feature_disabled, s.signing_secret_encrypted,
          CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret_encrypted END AS previous_secret
        FROM website_source_keys k JOIN website_sources s ON s.id = k.source_id JOIN tenants t ON t.id = s.tenant_id
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`)
      const r = rows[0]
      const encryption = Redacted.value(webhook.encryptionKey)
      const value: Credential | undefined = r === undefined ? undefined : (() => {
        const scope = { tenant_id: r.tenant_id as string, sandbox: r.sandbox as boolean }
        const blobs = [r.signing_secret_encrypted, r.previous_secret].filter((b): b is Uint8Array => b !== null && b !== undefined)
        return {
          key_id: r.key_id as string,
          kind: r.kind as KeyKind,
          source: {
            id: r.id as string, scope,
            allowed_origins: r.allowed_origins as Array<string>,
            allowed_events: r.allowed_events as Array<string>,
            allowed_hotels: r.allowed_hotels as Array<string>,
            consent_mode: r.consent_mode as "honour" | "ignore",
            rate_limit_per_minute: r.rate_limit_per_minute as number,
            mapping: (r.mapping as Mapping | null) ?? null,
            disabled: r.disabled as boolean,
            feature_disabled: r.feature_disabled as boolean,
            secrets: blobs.map((b) => decryptSourceSecret(encryption, scope, r.id as string, b))
          }
        }
      })()
      if (value !== undefined && value.kind !== kind) return undefined
      if (cache.size >= CACHE_MAX) cache.clear()
      cache.set(cacheKey, { value, until: Date.now() + CACHE_MS })
      return value
    })

    const originListed = Effect.fn("WebSources.originListed")(function*(origin: string) {
      const hit = origins.get(origin)
      if (hit && hit.until > Date.now()) return hit.value
      const rows = yield* db.query((sql) => sql`
        SELECT 1 FROM website_sources WHERE ${origin} = ANY(allowed_origins) AND enabled AND deleted_at IS NULL LIMIT 1`)
      if (origins.size >= CACHE_MAX) origins.clear()
      origins.set(origin, { value: rows.length > 0, until: Date.now() + CACHE_MS })
      return rows.length > 0
    })
    return WebSources.of({ authenticate, originListed })
  }))
}
