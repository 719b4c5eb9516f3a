/**
 * Merge tags in journey emails (`{{event_check_in}}`) and variable paths in WhatsApp template parameters
 * (`event.payload.context.resume_url`): what is known, what a tag renders, and what a path resolves to. Pure: the
 * definition check refuses unknown tags and paths when a journey is saved; the run renders with the context frozen at
 * its start (the starting event) and the contact and hotel as they are when the step runs.
 */
import { escapeHtml } from "../html.ts"

export interface MergeContext {
  /** The event that started the run, frozen at its start. */
  readonly event: {
    readonly name: string
    readonly id: string
    readonly occurred_at: string
    readonly payload: Readonly<Record<string, unknown>>
  }
  readonly contact: Readonly<Record<string, string | null | undefined>>
  readonly hotel: Readonly<Record<string, string | null | undefined>> | null
}

type Resolver = (c: MergeContext) => unknown

const context = (c: MergeContext): Readonly<Record<string, unknown>> => {
  const v = c.event.payload["context"]
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
}
/** A website event carries `context.<name>`; a core event (a booking) carries the same facts at the payload's top. */
const fromEvent = (name: string): Resolver => (c) => context(c)[name] ?? c.event.payload[name]

/** The spec's tags from the starting event, then the contact's and the hotel's. */
const TAGS: Readonly<Record<string, Resolver>> = {
  event_resume_url: (c) => context(c)["resume_url"],
  event_hotel_name: (c) => context(c)["hotel_name"] ?? c.hotel?.["name"],
  event_check_in: fromEvent("check_in"),
  event_check_out: fromEvent("check_out"),
  event_room_name: fromEvent("room_name"),
  event_rate_name: fromEvent("rate_name"),
  event_value: fromEvent("value"),
  event_currency: fromEvent("currency"),
  event_adults: fromEvent("adults"),
  event_children: fromEvent("children"),
  event_rooms: fromEvent("rooms"),
  event_stage: (c) => context(c)["stage"],
  event_name: (c) => c.event.name,
  contact_first_name: (c) => c.contact["first_name"],
  contact_last_name: (c) => c.contact["last_name"],
  contact_email: (c) => c.contact["email"],
  contact_phone: (c) => c.contact["phone"],
  contact_language: (c) => c.contact["language"],
  hotel_name: (c) => c.hotel?.["name"],
  hotel_code: (c) => c.hotel?.["code"]
}

export const KNOWN_TAGS: ReadonlyArray<string> = [...Object.keys(TAGS), "event_prop_<name>"]

const PROP = /^event_prop_([a-z0-9_]{1,64})$/
const TAG = /\{\{\s*([^{}]*?)\s*\}\}/g

const propertyOf = (c: MergeContext, name: string): unknown => {
  const props = c.event.payload["properties"]
  const fromProps = typeof props === "object" && props !== null ? (props as Record<string, unknown>)[name] : undefined
  return fromProps ?? c.event.payload[name]
}

const resolverOf = (tag: string): Resolver | undefined => {
  const known = TAGS[tag]
  if (known !== undefined) return known
  const prop = PROP.exec(tag)
  return prop === null ? undefined : (c) => propertyOf(c, prop[1]!)
}

/** The tags a text uses, as written between the braces. */
export const tagsIn = (text: string): ReadonlyArray<string> => [...text.matchAll(TAG)].map((m) => m[1]!)

export const isKnownTag = (tag: string): boolean => resolverOf(tag) !== undefined

/** A scalar as text; anything else (missing, null, an object) is no value. */
const scalar = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : typeof v === "boolean" ? String(v) : undefined

/** Renders every tag: a known tag without a value renders empty; in HTML the values are escaped. */
export const render = (text: string, c: MergeContext, options: { readonly html: boolean }): string =>
  text.replace(TAG, (_, tag: string) => {
    const value = scalar(resolverOf(tag)?.(c)) ?? ""
    return options.html ? escapeHtml(value) : value
  })

/**
 * The value each tag of the texts rendered to (null: none, rendered empty), as the run inspector shows them: what the
 * guest's message actually said, kept with the step (not rebuilt later from data that may have changed since).
 */
export const tagValues = (texts: ReadonlyArray<string>, c: MergeContext): Record<string, string | null> =>
  Object.fromEntries([...new Set(texts.flatMap(tagsIn))].map((tag) => [tag, scalar(resolverOf(tag)?.(c)) ?? null]))

export const RESUME_URL_TAG = "event_resume_url"

/** The resume link the starting event carried, if any (an email using its tag is skipped without one). */
export const resumeUrlOf = (c: MergeContext): string | undefined => {
  const v = scalar(TAGS[RESUME_URL_TAG]!(c))
  return v === undefined || v === "" ? undefined : v
}

// Variable paths for WhatsApp template parameters.
const CONTACT_FIELDS = ["first_name", "last_name", "email", "phone", "language"]
const HOTEL_FIELDS = ["name", "code"]
const SEGMENT = /^[A-Za-z0-9_]{1,64}$/

/** Whether a parameter path is one the run can resolve: `event.payload.<path>`, `event.name`, `contact.<field>`, `hotel.<field>`. */
export const isKnownPath = (path: string): boolean => {
  const parts = path.split(".")
  if (parts[0] === "event") {
    if (parts.length === 2) return parts[1] === "name" || parts[1] === "id"
    return parts[1] === "payload" && parts.length >= 3 && parts.length <= 8 && parts.slice(2).every((p) => SEGMENT.test(p))
  }
  if (parts.length !== 2) return false
  if (parts[0] === "contact") return CONTACT_FIELDS.includes(parts[1]!)
  if (parts[0] === "hotel") return HOTEL_FIELDS.includes(parts[1]!)
  return false
}

/** A path's value as a parameter: undefined when it has none (missing, empty, not a scalar): never sent empty. */
export const resolvePath = (path: string, c: MergeContext): string | undefined => {
  const parts = path.split(".")
  let value: unknown
  if (parts[0] === "event") {
    if (parts[1] === "name") value = c.event.name
    else if (parts[1] === "id") value = c.event.id
    else {
      value = c.event.payload
      for (const p of parts.slice(2)) {
        value = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[p] : undefined
      }
    }
  } else if (parts[0] === "contact") value = c.contact[parts[1]!]
  else if (parts[0] === "hotel") value = c.hotel?.[parts[1]!]
  const text = scalar(value)
  return text === undefined || text.trim() === "" ? undefined : text
}
