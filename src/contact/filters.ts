import { Effect, Schema } from "effect"
import { normaliseEmail, normalisePhone } from "../../core/normalise/index.ts"
import { DateTimeWithOffset, isUuid } from "../../schemas/common.ts"
import { refused } from "../http/paging.ts"

/** The filters of GET /api/v1/contacts, normalised as the ingestion stores them. */
export interface ContactFilters {
  readonly email?: string | undefined
  readonly phone?: string | undefined
  readonly tag?: string | undefined
  readonly hotel_id?: string | undefined
  readonly updated_since?: string | undefined
  /** The name's words as a text search query of word prefixes (`'ana':* & 'gar':*`), accents removed in SQL. */
  readonly name?: string | undefined
  /** A placeholder phone or email (which no contact holds, the ingestion drops them): the answer is empty. */
  readonly matchesNothing: boolean
}

export interface ContactQuery {
  readonly email?: string | undefined
  readonly phone?: string | undefined
  readonly tag?: string | undefined
  readonly hotel_id?: string | undefined
  readonly updated_since?: string | undefined
  readonly name?: string | undefined
}

const isDateTime = Schema.is(DateTimeWithOffset)

const CONTROL = /[\p{Cc}\p{Cf}]/u
const WORD = /[\p{L}\p{M}\p{N}]+/gu

/**
 * The words of a name search, lower-cased (accents are removed by the database, with the same rules as the index), or
 * why it is refused. A word is letters and digits: apostrophes, hyphens and dots separate words as they do in the
 * indexed names (`o'brien` finds O'Brien, `garcia-lopez` finds García-López), and no quote reaches the query text.
 */
export const nameWords = (text: string): ReadonlyArray<string> | string => {
  if (CONTROL.test(text)) return "must not contain control characters"
  if (text.length > 100) return "must be at most 100 characters"
  const words = (text.toLowerCase().match(WORD) ?? []).slice(0, 8)
  if (words.join("").length < 2) return "must have at least 2 letters or digits"
  return words
}

/**
 * Each filter checked and normalised, or 400 naming it: a phone in any format the guest and reservation ingestion
 * accepts becomes the E.164 it stored (the same `normalisePhone`), an email is matched lower-cased (as stored).
 */
export const contactFilters = Effect.fn("Contacts.filters")(function*(q: ContactQuery) {
  let matchesNothing = false
  let phone: string | undefined
  if (q.phone !== undefined) {
    const p = normalisePhone(q.phone)
    if (p.ok) phone = p.e164
    else if (p.reason === "placeholder") matchesNothing = true
    else return yield* refused("phone", "must be a valid phone number with its country code, e.g. +34600111222")
  }
  let email: string | undefined
  if (q.email !== undefined) {
    const e = normaliseEmail(q.email)
    if (e.ok) email = e.email
    else if (e.reason === "placeholder") matchesNothing = true
    else return yield* refused("email", "must be a valid email address")
  }
  if (q.tag !== undefined && (q.tag.trim() === "" || q.tag.length > 100)) return yield* refused("tag", "must be 1 to 100 characters")
  if (q.hotel_id !== undefined && !isUuid(q.hotel_id)) return yield* refused("hotel_id", "must be a UUID")
  if (q.updated_since !== undefined && !isDateTime(q.updated_since)) {
    return yield* refused("updated_since", "must be an ISO 8601 date-time with a timezone offset, e.g. 2026-05-01T14:30:00Z (encode + as %2B)")
  }
  let name: string | undefined
  if (q.name !== undefined) {
    const words = nameWords(q.name)
    if (typeof words === "string") return yield* refused("name", words)
    name = words.map((w) => `'${w}':*`).join(" & ")
  }
  return {
    email, phone, tag: q.tag?.trim(), hotel_id: q.hotel_id?.toLowerCase(), updated_since: q.updated_since, name, matchesNothing
  } satisfies ContactFilters
})
