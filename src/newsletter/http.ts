import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ActorClient } from "../../streams/ActorClient.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { ApiKeys } from "../auth/ApiKeys.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { TurnstileVerifier } from "./TurnstileVerifier.ts"
import { Suppressions } from "../privacy/Suppressions.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { normaliseOrigin } from "../../core/website/credentials.ts"
import { Api } from "../../schemas/api.ts"
import { Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import type { NewsletterConfigRequest } from "../../schemas/newsletter.ts"
import { callerScope } from "../http/handlerContext.ts"
import { NewsletterSettings, type WidgetSettings } from "./NewsletterSettings.ts"
import { subscribe } from "./subscribe.ts"
import { preflight, widgetCaller } from "./widgetCaller.ts"

const savedView = (s: WidgetSettings) => ({
  success: true as const,
  data: {
    publishable_key: s.publishable_key,
    enabled: s.enabled,
    allowed_origins: [...s.allowed_origins],
    fields: { first_name: s.first_name },
    bot_check: { enabled: s.bot_check, secret_set: s.secret() !== undefined }
  }
})

/** The widget set-up with a core key: origins must be exact origins; a bot check needs its secret; signup needs email. */
const update = Effect.fn("Newsletter.updateConfig")(function*(scope: TenantScope, patch: NewsletterConfigRequest) {
  const store = yield* NewsletterSettings
  const { sql } = yield* Database
  let origins: Array<string> | undefined
  if (patch.allowed_origins !== undefined) {
    const details: Record<string, Array<string>> = {}
    origins = []
    patch.allowed_origins.forEach((raw, i) => {
      const o = normaliseOrigin(raw)
      if (o === undefined) details[`allowed_origins[${i}]`] = ["must be an exact origin: scheme://host[:port], no path, no wildcard"]
      else if (!origins!.includes(o)) origins!.push(o)
    })
    if (Object.keys(details).length > 0) return yield* ValidationFailed.of("Invalid request: allowed_origins holds a value that is not an origin", details)
  }
  const current = yield* store.ofScope(scope)
  const botCheck = patch.bot_check?.enabled ?? current?.bot_check ?? false
  if (botCheck && patch.bot_check?.secret === undefined && current?.secret() === undefined) {
    return yield* Unprocessable.of("BOT_CHECK_SECRET_REQUIRED", "The bot check needs its Turnstile secret: send bot_check.secret", { "bot_check.secret": ["is required to enable the bot check"] })
  }
  if (patch.enabled ?? current?.enabled ?? false) {
    const channel = yield* Effect.promise(() => sql`SELECT 1 FROM channel_email WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`)
    if (channel.length === 0) {
      return yield* Unprocessable.of("CHANNEL_NOT_CONFIGURED", "The double opt-in email needs the email channel: configure it first (PUT /api/v1/channels/email)", { enabled: ["needs the email channel configured"] })
    }
  }
  return savedView(yield* store.save(scope, patch, origins))
})

/** The services the handlers use, taken when the server is built (not per request). */
type Services = NewsletterSettings | Database | ApiKeys | RateLimiter | AppConfig | Hotels | TurnstileVerifier | WebhookConfig | MessagingConfig | ActorClient |
  Suppressions

export const NewsletterConfigLive = HttpApiBuilder.group(Api, "newsletterConfig", (handlers) =>
  Effect.gen(function*() {
    const ctx = yield* Effect.context<NewsletterSettings | Database>()
    return handlers.handle("update", ({ payload }) => Effect.flatMap(callerScope, (scope) => update(scope, payload)).pipe(Effect.provideContext(ctx)))
  }))

/** What a widget needs to render, for a caller the widget's rules admit. */
const widgetConfig = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const caller = yield* widgetCaller(request)
  if (HttpServerResponse.isHttpServerResponse(caller)) return caller
  const s = caller.settings
  return HttpServerResponse.jsonUnsafe({
    success: true,
    data: {
      enabled: s.enabled,
      double_opt_in: true,
      fields: { first_name: { enabled: s.first_name, required: false } },
      consent: { required: true },
      bot_check: { enabled: s.bot_check, provider: s.bot_check ? "turnstile" : null, action: s.bot_check ? "newsletter_subscribe" : null },
      honeypot_field: "_hp",
      limits: { email_max: 254, source_max: 200 }
    }
  }, { headers: caller.headers })
})

const preflightOfRequest = Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), preflight)

export const NewsletterLive = HttpApiBuilder.group(Api, "newsletter", (handlers) =>
  Effect.gen(function*() {
    const ctx = yield* Effect.context<Services>()
    return handlers
      .handle("config", () => widgetConfig.pipe(Effect.provideContext(ctx)))
      .handle("subscribe", ({ payload }) => subscribe(payload).pipe(Effect.provideContext(ctx)))
      .handle("configPreflight", () => preflightOfRequest.pipe(Effect.provideContext(ctx)))
      .handle("subscribePreflight", () => preflightOfRequest.pipe(Effect.provideContext(ctx)))
  }))
