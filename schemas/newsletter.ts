import { Schema } from "effect"
import { maxLength, NonEmptyString, Uuid } from "./common.ts"

// The newsletter widget: its set-up with a core key, what the widget reads with its publishable key, the sign-up and
// its answer (spec, Newsletter subscribe; shapes of the design note §2.3).

const opt = Schema.optionalKey
const Origin = maxLength(300).annotate({ description: "an exact origin: scheme://host[:port], no path, no wildcard" })

export const NewsletterConfigRequest = Schema.Struct({
  enabled: opt(Schema.Boolean),
  allowed_origins: opt(Schema.Array(Origin).check(Schema.isMaxLength(50))),
  fields: opt(Schema.Struct({ first_name: opt(Schema.Boolean) })),
  bot_check: opt(Schema.Struct({
    enabled: opt(Schema.Boolean),
    secret: opt(NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")))
      .annotate({ description: "the Turnstile secret key: stored encrypted, never returned" })
  }))
})
export type NewsletterConfigRequest = typeof NewsletterConfigRequest.Type

export const NewsletterConfigSaved = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    publishable_key: Schema.String.annotate({ description: "svc_pub_…: the widget's key, for pages on the allowed origins" }),
    enabled: Schema.Boolean,
    allowed_origins: Schema.Array(Schema.String),
    fields: Schema.Struct({ first_name: Schema.Boolean }),
    bot_check: Schema.Struct({ enabled: Schema.Boolean, secret_set: Schema.Boolean })
  })
})

/** What a widget needs to render and submit, nothing secret. */
export const NewsletterWidgetConfig = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    enabled: Schema.Boolean,
    double_opt_in: Schema.Boolean,
    fields: Schema.Struct({ first_name: Schema.Struct({ enabled: Schema.Boolean, required: Schema.Boolean }) }),
    consent: Schema.Struct({ required: Schema.Boolean }),
    bot_check: Schema.Struct({ enabled: Schema.Boolean, provider: Schema.NullOr(Schema.Literal("turnstile")), action: Schema.NullOr(Schema.String) }),
    honeypot_field: Schema.Literal("_hp"),
    limits: Schema.Struct({ email_max: Schema.Number, source_max: Schema.Number })
  })
})

const Language = maxLength(10).check(Schema.makeFilter((s: string) =>
  /^[A-Za-z]{2}(?:[-_][A-Za-z0-9]{1,8})*$/u.test(s) || "must be an ISO 639-1 code such as en or pt-BR"))

export const SubscribeRequest = Schema.Struct({
  email: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 254 || "must be at most 254 characters")),
  consent: Schema.Boolean.annotate({ description: "must be true: the guest ticked the consent box" }),
  consent_text: opt(maxLength(2000)),
  first_name: opt(maxLength(100).annotate({ description: "stored only when the widget's first_name field is enabled" })),
  language: opt(Language),
  hotel_id: opt(Uuid),
  source: opt(maxLength(200)),
  turnstile_token: opt(maxLength(2048)),
  _hp: opt(maxLength(1000).annotate({ description: "honeypot: must be empty (a filled one is answered like a success, and nothing is stored)" }))
})
export type SubscribeRequest = typeof SubscribeRequest.Type

export const SubscribeResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ status: Schema.Literals(["pending", "subscribed"]), message: Schema.String })
})

export const ConfirmForm = Schema.Struct({ token: maxLength(1000) })

export const HONEYPOT_FIELD = "_hp"
export const TURNSTILE_ACTION = "newsletter_subscribe"
