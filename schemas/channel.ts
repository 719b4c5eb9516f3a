import { Schema } from "effect"
import { boundedInt, oneOf } from "./common.ts"
import { isSafeText, SafeString, TEXT_POLICY_MESSAGE } from "./text.ts"
import { ok } from "./list.ts"

// Channel configuration of an account, per mode (a sandbox key reads and writes the sandbox configuration, a live key
// the live one). A PUT sets the fields it sends; a field it does not send keeps its stored value (its default on the
// first PUT); `null` clears a nullable field. Secrets are write-only.

const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/iu
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/iu
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/iu

/** RFC 5321 mailbox syntax (dot-atom, ASCII), as a mail server accepts it in MAIL FROM; role addresses are fine here. */
export const isMailbox = (s: string): boolean => {
  if (s.length > 254) return false
  const at = s.indexOf("@")
  if (at < 1 || at !== s.lastIndexOf("@")) return false
  const local = s.slice(0, at)
  const labels = s.slice(at + 1).split(".")
  return local.length <= 64 && LOCAL.test(local) && labels.length >= 2 && labels.every((l) => LABEL.test(l)) &&
    TLD.test(labels[labels.length - 1]!)
}

export const EmailAddress = SafeString.check(Schema.makeFilter((s: string) =>
  isMailbox(s) || "must be an email address such as reservations@hotel.example (ASCII, at most 254 characters)"
)).annotate({ format: "email", description: "An email address (ASCII dot-atom, at most 254 characters)" })

// A display name goes into a mail header: line breaks or other control characters would let it forge headers.
const DisplayName = SafeString.check(Schema.makeFilter((s: string) =>
  (s.trim().length > 0 && [...s].length <= 200 && !/\p{Cc}/u.test(s)) ||
  "must be 1 to 200 characters without line breaks or control characters"
)).annotate({ description: "Sender display name: 1-200 characters, no line breaks" })

// Bounds that also appear in the OpenAPI document (the edge policy test wants every number's bounds there).
const intBetween = boundedInt

export const MAX_SEND_RATE_PER_MINUTE = 100_000
const SendRate = intBetween(1, MAX_SEND_RATE_PER_MINUTE)
  .annotate({ description: `Sends per minute for this account and channel, 1-${MAX_SEND_RATE_PER_MINUTE}; null: the deployment default` })

export const Mode = Schema.Literals(["live", "sandbox"]).annotate({ description: "Whose configuration this is: the calling key's mode" })

// ---------------------------------------------------------------------------------------------------------------
// Email

export const SenderOverride = Schema.Struct({
  from_address: Schema.optionalKey(EmailAddress),
  from_name: Schema.optionalKey(DisplayName),
  reply_to: Schema.optionalKey(EmailAddress)
}).check(Schema.makeFilter((o) =>
  Object.keys(o).length > 0 || "must set at least one of from_address, from_name, reply_to"
)).annotate({ description: "What replaces the account's sender, field by field, for mail about this hotel" })

export const MAX_HOTEL_OVERRIDES = 1000

export const HotelOverrides = Schema.Record(Schema.String, SenderOverride).check(Schema.makeFilter((r) =>
  Object.keys(r).length <= MAX_HOTEL_OVERRIDES || `must have at most ${MAX_HOTEL_OVERRIDES} hotels`
), Schema.makeFilter((r: Record<string, unknown>) => Object.keys(r).filter((k) => !isSafeText(k)).map((k) => ({ path: [k], issue: TEXT_POLICY_MESSAGE })), {
  // The keys (hotel ids) under the text policy too.
  toJsonSchema: () => ({ propertyNames: { pattern: "^[^\\u0000\\uD800-\\uDFFF]*$" } }) as never
})).annotate({ description: "Per hotel id (one of the account's hotels): the sender for mail about that hotel. Replaced whole when sent." })

export const EmailChannelRequest = Schema.Struct({
  from_address: EmailAddress.annotate({ description: "Required on every PUT (a PUT replaces the whole sender): the address mail is sent from" }),
  from_name: Schema.optionalKey(Schema.NullOr(DisplayName)),
  reply_to: Schema.optionalKey(Schema.NullOr(EmailAddress)),
  hotel_overrides: Schema.optionalKey(HotelOverrides),
  send_rate_per_minute: Schema.optionalKey(Schema.NullOr(SendRate))
})
export type EmailChannelRequest = typeof EmailChannelRequest.Type

export const EmailChannelView = Schema.Struct({
  mode: Mode,
  from_address: Schema.String,
  from_name: Schema.NullOr(Schema.String),
  reply_to: Schema.NullOr(Schema.String),
  hotel_overrides: Schema.Record(Schema.String, Schema.Struct({
    from_address: Schema.optionalKey(Schema.String),
    from_name: Schema.optionalKey(Schema.String),
    reply_to: Schema.optionalKey(Schema.String)
  })),
  send_rate_per_minute: Schema.NullOr(Schema.Int),
  updated_at: Schema.String
})
export type EmailChannelView = typeof EmailChannelView.Type

// ---------------------------------------------------------------------------------------------------------------
// WhatsApp

export const TemplateCategories = ["marketing", "utility", "authentication"] as const

/** Meta's rule for template names: lowercase letters, digits and underscores. */
export const TemplateName = SafeString.check(Schema.makeFilter((s: string) =>
  /^[a-z0-9_]{1,512}$/u.test(s) || "must be the template's name in Meta: lowercase letters, digits and underscores (1-512)"
))
/** Meta's language codes: `es`, `en_US`, `pt_BR`, `zh_HK`, `fil`. */
export const TemplateLanguage = SafeString.check(Schema.makeFilter((s: string) =>
  /^[a-z]{2,3}(_[A-Za-z0-9]{2,8})?$/u.test(s) || "must be a WhatsApp language code such as es, en_US or pt_BR"
))

export const WhatsAppTemplate = Schema.Struct({
  name: TemplateName,
  language: TemplateLanguage,
  category: oneOf(TemplateCategories),
  body_parameters: intBetween(0, 100).annotate({ description: "How many {{n}} parameters the template's body has" })
}).annotate({ description: "A template approved in WhatsApp Manager, registered so a send can be checked before it leaves" })
export type WhatsAppTemplate = typeof WhatsAppTemplate.Type

/** One template registered (or replaced) by name and language, the path's. */
export const TemplateRequest = Schema.Struct({
  category: WhatsAppTemplate.fields.category,
  body_parameters: WhatsAppTemplate.fields.body_parameters
})

export const MAX_TEMPLATES = 1000

export const TemplateList = Schema.Array(WhatsAppTemplate).check(Schema.makeFilter((list: ReadonlyArray<WhatsAppTemplate>) => {
  const issues: Array<Schema.FilterIssue> = []
  if (list.length > MAX_TEMPLATES) issues.push({ path: [], issue: `must have at most ${MAX_TEMPLATES} templates` })
  const first = new Map<string, number>()
  list.forEach((t, i) => {
    const key = `${t.name}\u0000${t.language}`
    const seen = first.get(key)
    if (seen === undefined) first.set(key, i)
    else issues.push({ path: [i], issue: `repeats templates[${seen}] (${t.name}, ${t.language}): a name and language are registered once` })
  })
  return issues
})).annotate({ description: "The registered templates, replacing the stored set whole (one transaction)" })

const PhoneNumberId = SafeString.check(Schema.makeFilter((s: string) =>
  /^[A-Za-z0-9_-]{1,64}$/u.test(s) || "must be the WhatsApp phone number id (digits as Meta shows it; 1-64 letters, digits, - or _)"
)).annotate({ description: "The WhatsApp Business phone number id (not the phone number): one account and mode per number" })

const secret = (what: string, max: number) => SafeString.check(Schema.makeFilter((s: string) =>
  (s.length > 0 && s.length <= max && !/\s/u.test(s)) || `must be the ${what}: 1-${max} characters without spaces`
))

export const WhatsAppChannelRequest = Schema.Struct({
  phone_number_id: PhoneNumberId,
  access_token: Schema.optionalKey(secret("Cloud API access token", 4096))
    .annotate({ description: "Required on the first PUT; kept when omitted; sending it rotates it. Stored encrypted, never returned." }),
  app_secret: Schema.optionalKey(secret("Meta app secret", 512))
    .annotate({ description: "Signs the provider's webhooks. Required on the first PUT; kept when omitted. Stored encrypted, never returned." }),
  verify_token: Schema.optionalKey(Schema.NullOr(secret("webhook verify token", 512)))
    .annotate({ description: "The hub.verify_token of the webhook subscription handshake; kept as a digest; null removes it" }),
  templates: Schema.optionalKey(TemplateList),
  send_rate_per_minute: Schema.optionalKey(Schema.NullOr(SendRate))
})
export type WhatsAppChannelRequest = typeof WhatsAppChannelRequest.Type

export const WhatsAppChannelView = Schema.Struct({
  mode: Mode,
  phone_number_id: Schema.String,
  access_token_set: Schema.Boolean,
  app_secret_set: Schema.Boolean,
  verify_token_set: Schema.Boolean,
  templates: Schema.Array(Schema.Struct({
    name: Schema.String,
    language: Schema.String,
    category: Schema.Literals(TemplateCategories),
    body_parameters: Schema.Int
  })),
  send_rate_per_minute: Schema.NullOr(Schema.Int),
  updated_at: Schema.String
})
export type WhatsAppChannelView = typeof WhatsAppChannelView.Type

export const EmailChannelResponse = ok(EmailChannelView)
export const WhatsAppChannelResponse = ok(WhatsAppChannelView)
export const TemplateResponse = ok(Schema.Struct({ mode: Mode, ...WhatsAppTemplate.fields }))
export const TemplateRemovedResponse = ok(Schema.Struct({ mode: Mode, name: Schema.String, language: Schema.String, removed: Schema.Literal(true) }))
