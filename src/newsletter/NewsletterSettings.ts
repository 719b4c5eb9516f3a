import { Context, Effect, Layer, Redacted } from "effect"
import { Database } from "../../core/db/Database.ts"
import {
  decryptNewsletterSecret, encryptNewsletterSecret, generatePublishableKey, hashPublishableKey, looksPublishable
} from "../../core/newsletter/credentials.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import type { NewsletterConfigRequest } from "../../schemas/newsletter.ts"

/** One account's (and mode's) widget settings, the bot-check secret decrypted only when asked for. */
export interface WidgetSettings {
  readonly scope: TenantScope
  readonly enabled: boolean
  readonly allowed_origins: ReadonlyArray<string>
  readonly first_name: boolean
  readonly bot_check: boolean
  readonly publishable_key: string
  readonly secret: () => string | undefined
}

interface Row {
  tenant_id: string
  sandbox: boolean
  enabled: boolean
  allowed_origins: Array<string>
  first_name_enabled: boolean
  bot_check_enabled: boolean
  bot_check_secret_encrypted: Uint8Array | null
  publishable_key_encrypted: Uint8Array
}

/** How long a publishable-key lookup is reused: bounds how long a settings change takes to reach every ingress. */
const CACHE_MS = 5_000
const CACHE_MAX = 10_000

export class NewsletterSettings extends Context.Service<NewsletterSettings, {
  /** Applies a partial change (creating the settings and their publishable key on first use) and answers the result. */
  readonly save: (scope: TenantScope, patch: NewsletterConfigRequest, allowedOrigins: ReadonlyArray<string> | undefined) => Effect.Effect<WidgetSettings>
  readonly ofScope: (scope: TenantScope) => Effect.Effect<WidgetSettings | undefined>
  /** The settings a publishable key belongs to, or undefined for a malformed or unknown key. */
  readonly ofPublishableKey: (key: string) => Effect.Effect<WidgetSettings | undefined>
  /** Whether an enabled widget allows this origin (a CORS preflight carries no key, so any account's list counts). */
  readonly originListed: (origin: string) => Effect.Effect<boolean>
}>()("app/newsletter/NewsletterSettings") {
  static readonly layer = Layer.effect(NewsletterSettings, Effect.gen(function*() {
    const db = yield* Database
    const key = Redacted.value((yield* WebhookConfig).encryptionKey)
    const cache = new Map<string, { settings: WidgetSettings | undefined; until: number }>()

    const view = (r: Row): WidgetSettings => {
      const scope = { tenant_id: r.tenant_id, sandbox: r.sandbox }
      return {
        scope,
        enabled: r.enabled,
        allowed_origins: r.allowed_origins,
        first_name: r.first_name_enabled,
        bot_check: r.bot_check_enabled,
        publishable_key: decryptNewsletterSecret(key, scope, "publishable_key", r.publishable_key_encrypted),
        secret: () => r.bot_check_secret_encrypted === null ? undefined : decryptNewsletterSecret(key, scope, "bot_check_secret", r.bot_check_secret_encrypted)
      }
    }
    const COLUMNS = "tenant_id, sandbox, enabled, allowed_origins, first_name_enabled, bot_check_enabled, bot_check_secret_encrypted, publishable_key_encrypted"

    const ofScope = Effect.fn("NewsletterSettings.ofScope")(function*(scope: TenantScope) {
      const rows = yield* db.query((sql) => sql.unsafe(`SELECT ${COLUMNS} FROM newsletter_settings WHERE tenant_id = $1 AND sandbox = $2`, [scope.tenant_id, scope.sandbox]))
      return rows[0] === undefined ? undefined : view(rows[0] as unknown as Row)
    })

    const save = Effect.fn("NewsletterSettings.save")(function*(scope: TenantScope, patch: NewsletterConfigRequest, origins: ReadonlyArray<string> | undefined) {
      const publishable = generatePublishableKey()
      const secret = patch.bot_check?.secret
      const rows = yield* db.query((sql) => sql`
        INSERT INTO newsletter_settings (tenant_id, sandbox, enabled, allowed_origins, first_name_enabled, bot_check_enabled,
          bot_check_secret_encrypted, publishable_key_sha256, publishable_key_encrypted)
        VALUES (${scope.tenant_id}, ${scope.sandbox}, ${patch.enabled ?? false}, ${origins ?? []}, ${patch.fields?.first_name ?? false},
          ${patch.bot_check?.enabled ?? false}, ${secret === undefined ? null : encryptNewsletterSecret(key, scope, "bot_check_secret", secret)},
          ${hashPublishableKey(publishable)}, ${encryptNewsletterSecret(key, scope, "publishable_key", publishable)})
        ON CONFLICT (tenant_id, sandbox) DO UPDATE SET
          enabled = coalesce(${patch.enabled ?? null}::boolean, newsletter_settings.enabled),
          allowed_origins = coalesce(${origins === undefined ? null : origins}::text[], newsletter_settings.allowed_origins),
          first_name_enabled = coalesce(${patch.fields?.first_name ?? null}::boolean, newsletter_settings.first_name_enabled),
          bot_check_enabled = coalesce(${patch.bot_check?.enabled ?? null}::boolean, newsletter_settings.bot_check_enabled),
          bot_check_secret_encrypted = coalesce(EXCLUDED.bot_check_secret_encrypted, newsletter_settings.bot_check_secret_encrypted),
          updated_at = now()
        RETURNING ${sql.unsafe(COLUMNS)}`)
      cache.clear()
      return view(rows[0] as unknown as Row)
    })

    const ofPublishableKey = Effect.fn("NewsletterSettings.ofPublishableKey")(function*(raw: string) {
      if (!looksPublishable(raw)) return undefined
      const hash = hashPublishableKey(raw)
      const cacheKey = hash.toString("base64")
      const hit = cache.get(cacheKey)
      if (hit !== undefined && hit.until > Date.now()) return hit.settings
      const rows = yield* db.query((sql) => sql.unsafe(`SELECT ${COLUMNS} FROM newsletter_settings WHERE publishable_key_sha256 = $1`, [hash]))
      const settings = rows[0] === undefined ? undefined : view(rows[0] as unknown as Row)
      if (cache.size >= CACHE_MAX) cache.clear()
      cache.set(cacheKey, { settings, until: Date.now() + CACHE_MS })
      return settings
    })
    const originListed = Effect.fn("NewsletterSettings.originListed")(function*(origin: string) {
      const rows = yield* db.query((sql) => sql`SELECT 1 FROM newsletter_settings WHERE enabled AND ${origin} = ANY(allowed_origins) LIMIT 1`)
      return rows.length > 0
    })
    return NewsletterSettings.of({ save, ofScope, ofPublishableKey, originListed })
  }))
}
