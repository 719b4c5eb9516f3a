import type postgres from "postgres"
import type { ContactState, StayState } from "./contactState.ts"
import { dayOf, instantOf } from "./time.ts"

// The one registry of the fields a segment may name. Each field gives its type, where it may appear, the SQL
// expression of its value (over `c` contacts; `r` reservations and `h` hotels inside `has_stay`) and the accessor of the
// same value in a loaded ContactState, so the SQL compiler and the TypeScript evaluator read one definition.
//
// Values in TypeScript: strings, numbers, booleans, string lists (tags), dates as day numbers and date-times as
// milliseconds (time.ts); null when missing. A value stored with another JSON type than its field's (a custom field
// whose definition changed type) counts as missing on both sides.

export type SqlTag = postgres.Sql | postgres.TransactionSql | postgres.ReservedSql
export type Fragment = postgres.Fragment

export type FieldType = "string" | "number" | "date" | "datetime" | "boolean" | "tags"
export type Value = string | number | boolean | ReadonlyArray<string> | null

/** A custom field's definition as custom_field_definitions holds it. */
export interface CustomFieldDef {
  readonly field_key: string
  readonly field_type: string
  readonly options: ReadonlyArray<string> | null
}

/** What evaluating a definition needs besides the data: the instant it is evaluated at and the tenant's custom fields. */
export interface SegmentContext {
  readonly now: Date
  readonly customFields: ReadonlyArray<CustomFieldDef>
}

interface FieldBase {
  readonly type: FieldType
  readonly sql: (q: postgres.Sql) => Fragment
  /** Allowed values (select and multiselect custom fields), checked by validation. */
  readonly options?: ReadonlyArray<string>
}
export interface ContactField extends FieldBase {
  readonly scope: "contact"
  readonly get: (s: ContactState) => Value
}
export interface StayField extends FieldBase {
  readonly scope: "stay"
  readonly get: (s: StayState) => Value
}
export type Field = ContactField | StayField

const str = (v: unknown): string | null => (typeof v === "string" ? v : null)
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null)
const day = (v: unknown): number | null => (typeof v === "string" ? dayOf(v) ?? null : null)
const addressPart = (s: ContactState, key: string): string | null => {
  const a = s.contact.address
  return a !== null && typeof a === "object" && !Array.isArray(a) ? str((a as Record<string, unknown>)[key]) : null
}
/** The member's value, when the contact is a loyalty member. */
const member = (q: postgres.Sql, column: Fragment) => q`(
  SELECT ${column} FROM loyalty_members m
  WHERE m.tenant_id = c.tenant_id AND m.sandbox = c.sandbox AND m.email = lower(c.email)
    AND m.status = 'active' AND m.kind = 'member')`

const contact = (type: FieldType, sql: FieldBase["sql"], get: ContactField["get"]): ContactField =>
  ({ scope: "contact", type, sql, get })
const stay = (type: FieldType, sql: FieldBase["sql"], get: StayField["get"]): StayField => ({ scope: "stay", type, sql, get })

export const FIELDS: Readonly<Record<string, Field>> = {
  "contact.language": contact("string", (q) => q`c.language`, (s) => s.contact.language),
  "contact.nationality": contact("string", (q) => q`c.nationality`, (s) => s.contact.nationality),
  "contact.gender": contact("string", (q) => q`c.gender`, (s) => s.contact.gender),
  "contact.date_of_birth": contact("date", (q) => q`c.date_of_birth`, (s) => day(s.contact.date_of_birth)),
  "contact.address.country": contact("string",
    (q) => q`(CASE WHEN jsonb_typeof(c.address -> 'country') = 'string' THEN c.address ->> 'country' END)`,
    (s) => addressPart(s, "country")),
  "contact.address.city": contact("string",
    (q) => q`(CASE WHEN jsonb_typeof(c.address -> 'city') = 'string' THEN c.address ->> 'city' END)`,
    (s) => addressPart(s, "city")),
  "contact.tags": contact("tags", (q) => q`c.tags`, (s) => s.contact.tags),
  "contact.source": contact("string", (q) => q`c.source`, (s) => s.contact.source),
  // Truncated to the millisecond: the evaluator's Date holds no more, and both must compare the same instant.
  "contact.created_at": contact("datetime", (q) => q`date_trunc('milliseconds', c.created_at)`,
    (s) => s.contact.created_at.getTime()),
  "contact.has_email": contact("boolean", (q) => q`(c.email IS NOT NULL)`, (s) => s.contact.email !== null),
  "contact.has_phone": contact("boolean", (q) => q`(c.phone IS NOT NULL)`, (s) => s.contact.phone !== null),
  "contact.email_consent": contact("boolean", (q) => q`c.email_consent`, (s) => s.contact.email_consent),
  "contact.whatsapp_marketing_consent": contact("boolean", (q) => q`c.whatsapp_marketing_consent`,
    (s) => s.contact.whatsapp_marketing_consent),
  // The tier the loyalty module computes (loyalty_member_tier, migration 013: also what tierOfEmail shows).
  "loyalty.tier": contact("string",
    (q) => member(q, q`(SELECT t.tier_slug FROM loyalty_member_tier(m.member_id) t)`), (s) => s.loyalty?.tier ?? null),
  "loyalty.points": contact("number", (q) => member(q, q`m.balance_active::numeric`), (s) => s.loyalty?.points ?? null),

  "stay.hotel_id": stay("string", (q) => q`r.hotel_id::text`, (s) => s.hotel_id),
  "stay.hotel_code": stay("string", (q) => q`h.code`, (s) => s.hotel_code),
  "stay.status": stay("string", (q) => q`r.status`, (s) => s.status),
  "stay.stage": stay("string", (q) => q`r.guest_stage`, (s) => s.stage),
  "stay.check_in": stay("date", (q) => q`r.check_in`, (s) => day(s.check_in)),
  "stay.check_out": stay("date", (q) => q`r.check_out`, (s) => day(s.check_out)),
  "stay.booking_date": stay("date", (q) => q`r.booking_date`, (s) => day(s.booking_date)),
  "stay.nights": stay("number", (q) => q`r.nights::numeric`, (s) => s.nights),
  "stay.channel": stay("string", (q) => q`r.channel`, (s) => s.channel),
  "stay.source": stay("string", (q) => q`r.source`, (s) => s.source),
  "stay.market_segment": stay("string", (q) => q`r.market_segment`, (s) => s.market_segment),
  "stay.rate_code": stay("string", (q) => q`r.rate_plan`, (s) => s.rate_code),
  "stay.room_type": stay("string", (q) => q`r.room_type`, (s) => s.room_type),
  // Board is per room (reservations.stays[]); a reservation's board is its first room's, as room_type is.
  "stay.board_type": stay("string", (q) => q`(r.stays -> 0 ->> 'board_type')`, (s) => s.board_type),
  "stay.amount": stay("number", (q) => q`r.amount`, (s) => s.amount),
  "stay.agency": stay("string", (q) => q`r.agency`, (s) => s.agency),
  "stay.company": stay("string", (q) => q`r.company`, (s) => s.company)
}

export const CUSTOM_PREFIX = "custom."

/** The language's type of a custom field type (text and select are strings, multiselect a list like tags). */
export const customTypeOf = (fieldType: string): FieldType | undefined => {
  switch (fieldType) {
    case "string": case "text": case "select": return "string"
    case "number": return "number"
    case "boolean": return "boolean"
    case "date": return "date"
    case "datetime": return "datetime"
    case "multiselect": return "tags"
    default: return undefined
  }
}

const customField = (def: CustomFieldDef): Field | undefined => {
  const type = customTypeOf(def.field_type)
  if (type === undefined) return undefined
  const key = def.field_key
  const options = def.field_type === "select" || def.field_type === "multiselect" ? def.options ?? [] : undefined
  const raw = (s: ContactState) => s.contact.custom_fields[key]
  // The key is a parameter, never SQL text; a value of another JSON type is missing (see above).
  const v = (q: postgres.Sql) => q`c.custom_fields -> ${key}::text`
  const is = (q: postgres.Sql, t: string) => q`jsonb_typeof(${v(q)}) = ${t}::text`
  const text = (q: postgres.Sql) => q`(c.custom_fields ->> ${key}::text)`
  const field = (sql: FieldBase["sql"], get: ContactField["get"]): ContactField =>
    ({ scope: "contact", type, sql, get, ...(options === undefined ? {} : { options }) })
  switch (type) {
    case "string":
      return field((q) => q`(CASE WHEN ${is(q, "string")} THEN ${text(q)} END)`, (s) => str(raw(s)))
    case "number":
      return field((q) => q`(CASE WHEN ${is(q, "number")} THEN ${text(q)}::numeric END)`, (s) => num(raw(s)))
    case "boolean":
      return field((q) => q`(CASE WHEN ${is(q, "boolean")} THEN ${text(q)}::boolean END)`,
        (s) => { const b = raw(s); return typeof b === "boolean" ? b : null })
    case "date":
      return field((q) => q`(CASE WHEN ${is(q, "string")} THEN segment_date(${text(q)}) END)`, (s) => day(raw(s)))
    case "datetime":
      return field(
        (q) => q`date_trunc('milliseconds', (CASE WHEN ${is(q, "string")} THEN segment_timestamptz(${text(q)}) END))`,
        (s) => { const t = raw(s); return typeof t === "string" ? instantOf(t) ?? null : null })
    case "tags":
      return field(
        (q) => q`(CASE WHEN ${is(q, "array")} THEN ARRAY(
          SELECT e #>> '{}' FROM jsonb_array_elements(${v(q)}) e WHERE jsonb_typeof(e) = 'string') END)`,
        (s) => { const a = raw(s); return Array.isArray(a) ? a.filter((e): e is string => typeof e === "string") : null })
  }
}

/** The field a leaf names, custom fields typed by the tenant's definitions; undefined when there is no such field. */
export const fieldOf = (name: string, customFields: ReadonlyArray<CustomFieldDef>): Field | undefined => {
  if (name.startsWith(CUSTOM_PREFIX)) {
    const def = customFields.find((d) => d.field_key === name.slice(CUSTOM_PREFIX.length))
    return def === undefined ? undefined : customField(def)
  }
  return Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined
}

/** The statuses of an outbound message that reached the provider: what `received` counts (not queued, skipped, failed). */
export const RECEIVED_STATUSES: ReadonlyArray<string> = ["sent", "delivered", "read"]
