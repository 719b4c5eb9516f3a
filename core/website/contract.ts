import { printable } from "../../schemas/text.ts"
import { normaliseEmail, normalisePhone } from "../normalise/index.ts"
import {
  bool, type Check, checkObject, date, dateTime, httpsUrl, int, isObject, type Issue, num, oneOf, text, uuid
} from "./fields.ts"

export type { Issue } from "./fields.ts"

// The website-event contract (spec: "Website event"), judged without services: strict (unknown keys refused at any
// level), every field rule of the event, contact, consent and context tables. Pure, so it is property-tested.

export const MAX_BATCH = 50
export const MAX_PROPERTIES = 25
export const STAGES = ["dates", "room", "extras", "details", "payment"] as const
export const EVENT_NAME = /^[a-z][a-z0-9_]{0,31}(?:\.[a-z][a-z0-9_]{0,31}){0,3}$/
const PHONE_SHAPE = /^\+?\d[\d\s().-]{5,30}$/
const LANGUAGE = /^[A-Za-z]{2}(?:[-_](?:[A-Za-z]{2}|\d{3}))?$/
const PROPERTY_NAME = /^[a-z0-9_]{1,64}$/

export const eventName = text(1, 64, EVENT_NAME,
  "must be a lowercase dotted name: 1 to 4 segments, each a letter then letters, digits or _ (32 characters each), 64 in all")

const CONTACT: Record<string, Check> = {
  email: text(1, 254),
  phone: text(1, 40, PHONE_SHAPE, "must be an optional +, a digit, then 5 to 30 digits, spaces, parentheses, dots or hyphens"),
  first_name: text(1, 100),
  last_name: text(1, 100),
  language: text(2, 10, LANGUAGE, "must be two letters with an optional region after - or _ (es, pt-BR)")
}

const CONSENT: Record<string, Check> = {
  email_marketing: bool,
  text: text(10, 2000),
  captured_at: dateTime,
  language: text(1, 10),
  form_id: text(1, 100)
}

const CONTEXT: Record<string, Check> = {
  hotel_id: uuid,
  hotel_code: text(1, 50),
  hotel_name: text(1, 200),
  stage: oneOf(STAGES),
  check_in: date,
  check_out: date,
  adults: int(0, 30),
  children: int(0, 30),
  rooms: int(1, 20),
  room_name: text(1, 200),
  rate_name: text(1, 200),
  value: num(0, 10_000_000),
  currency: text(3, 3, /^[A-Z]{3}$/, "must be three capital letters (ISO 4217), e.g. EUR"),
  cart_id: text(1, 200),
  session_id: text(1, 200),
  resume_url: httpsUrl(2048),
  page_url: text(1, 2048),
  referrer: text(1, 2048)
}

const propertyValue: Check = (v) =>
  typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) ? undefined
  : typeof v === "string" ? text(0, 500)(v)
  : "must be a string (at most 500 characters), a number or a boolean"

const properties: Check = () => undefined // judged key by key below

const EVENT: Record<string, Check> = {
  event: eventName,
  occurred_at: dateTime,
  idempotency_key: text(1, 200),
  contact: () => undefined,
  consent: () => undefined,
  context: () => undefined,
  properties,
  test: bool
}

/** The keys each level of an event takes (the documentation schema in schemas/websiteEvents.ts is held to these). */
export const CONTRACT_FIELDS = {
  event: Object.keys(EVENT), contact: Object.keys(CONTACT), consent: Object.keys(CONSENT), context: Object.keys(CONTEXT)
} as const

export interface Contact {
  readonly email?: string
  readonly phone?: string
  readonly first_name?: string
  readonly last_name?: string
  readonly language?: string
}
export interface Consent {
  readonly email_marketing: boolean
  readonly text?: string
  readonly captured_at?: string
  readonly language?: string
  readonly form_id?: string
}
export type Context = Readonly<Record<string, string | number>>

/** An event that passed the contract, contact normalised (email lower-cased, phone E.164). */
export interface WebsiteEvent {
  readonly event: string
  readonly occurred_at?: string
  readonly idempotency_key?: string
  readonly contact?: Contact
  readonly consent?: Consent
  readonly context?: Context
  readonly properties?: Readonly<Record<string, string | number | boolean>>
  readonly test?: boolean
  /** The address or number is an agency desk, a placeholder or a role account (rule 1): no contact is made. */
  readonly not_person?: "email" | "phone"
}

export type Judged = { readonly ok: true; readonly event: WebsiteEvent } | { readonly ok: false; readonly issues: ReadonlyArray<Issue> }

const propertyIssues = (v: unknown): Array<Issue> => {
  if (!isObject(v)) return [{ field: "properties", message: "must be an object" }]
  const keys = Object.keys(v)
  const issues: Array<Issue> = keys.length > MAX_PROPERTIES ? [{ field: "properties", message: `must have at most ${MAX_PROPERTIES} keys` }] : []
  for (const k of keys) {
    if (!PROPERTY_NAME.test(k)) issues.push({ field: `properties.${printable(k.slice(0, 80))}`, message: "names must be lowercase letters, digits and _ (1 to 64)" })
    else {
      const problem = propertyValue(v[k])
      if (problem !== undefined) issues.push({ field: `properties.${k}`, message: problem })
    }
  }
  return issues
}

/** One event of a request, judged whole: every issue at once, or the normalised event. */
export const judgeEvent = (raw: unknown): Judged => {
  const issues = checkObject(raw, "", EVENT, ["event"])
  if (!isObject(raw)) return { ok: false, issues }
  if (raw.contact !== undefined && raw.contact !== null) issues.push(...checkObject(raw.contact, "contact", CONTACT))
  if (raw.consent !== undefined && raw.consent !== null) issues.push(...checkObject(raw.consent, "consent", CONSENT, ["email_marketing"]))
  if (raw.context !== undefined && raw.context !== null) issues.push(...checkObject(raw.context, "context", CONTEXT))
  if (raw.properties !== undefined && raw.properties !== null) issues.push(...propertyIssues(raw.properties))
  let not_person: "email" | "phone" | undefined
  const contact = isObject(raw.contact) ? { ...raw.contact } as Record<string, unknown> : undefined
  if (contact !== undefined && typeof contact.email === "string" && !issues.some((i) => i.field === "contact.email")) {
    const e = normaliseEmail(contact.email)
    if (e.ok) contact.email = e.email
    else if (e.reason === "placeholder") not_person = "email"
    else issues.push({ field: "contact.email", message: "must be a valid email address" })
  }
  if (contact !== undefined && typeof contact.phone === "string" && !issues.some((i) => i.field === "contact.phone")) {
    const p = normalisePhone(contact.phone)
    if (p.ok) contact.phone = p.e164
    else if (p.reason === "placeholder") not_person ??= "phone"
    else issues.push({ field: "contact.phone", message: "must be a valid phone number with its country code" })
  }
  const ctx = isObject(raw.context) ? raw.context : undefined
  if (ctx !== undefined && typeof ctx.check_in === "string" && typeof ctx.check_out === "string" &&
    date(ctx.check_in) === undefined && date(ctx.check_out) === undefined && ctx.check_out <= ctx.check_in) {
    issues.push({ field: "context.check_out", message: "must be after check_in" })
  }
  if (issues.length > 0) return { ok: false, issues }
  const event = { ...raw, ...(contact === undefined ? {} : { contact }), ...(not_person === undefined ? {} : { not_person }) }
  return { ok: true, event: event as unknown as WebsiteEvent }
}

/** Where an accepted event's receive time puts its occurred_at (rule: at most 7 days old, 5 minutes ahead). */
export const occurredAtProblem = (occurredAt: string | undefined, now: number): "occurred_at_too_old" | "occurred_at_in_future" | undefined => {
  if (occurredAt === undefined) return undefined
  const t = Date.parse(occurredAt)
  if (t < now - 7 * 86_400_000) return "occurred_at_too_old"
  if (t > now + 5 * 60_000) return "occurred_at_in_future"
  return undefined
}

export type Envelope =
  | { readonly kind: "single"; readonly item: unknown }
  | { readonly kind: "batch"; readonly items: ReadonlyArray<unknown> }
  | { readonly kind: "error"; readonly code: "invalid_body" | "batch_empty" | "batch_too_large"; readonly detail: string }

/** One event or `{ events: [1..50] }` (and, for a webhook, a JSON array as a batch). */
export const envelopeOf = (json: unknown, arrayIsBatch: boolean): Envelope => {
  const batch = (items: unknown): Envelope => {
    if (!Array.isArray(items)) return { kind: "error", code: "invalid_body", detail: "events must be an array of event objects" }
    if (items.length === 0) return { kind: "error", code: "batch_empty", detail: "events holds no event" }
    if (items.length > MAX_BATCH) return { kind: "error", code: "batch_too_large", detail: `events holds ${items.length} events; at most ${MAX_BATCH}` }
    return { kind: "batch", items }
  }
  if (Array.isArray(json)) return arrayIsBatch ? batch(json) : { kind: "error", code: "invalid_body", detail: "the body is an array; send one event or { events: [...] }" }
  if (!isObject(json)) return { kind: "error", code: "invalid_body", detail: "the body must be one event object or { events: [...] }" }
  if (Object.hasOwn(json, "events")) {
    const others = Object.keys(json).filter((k) => k !== "events")
    if (others.length > 0) return { kind: "error", code: "invalid_body", detail: `a batch holds only events; also found ${others.slice(0, 5).join(", ")}` }
    return batch(json.events)
  }
  return { kind: "single", item: json }
}
