import { parsePhoneNumberFromString } from "libphonenumber-js/max"
import { PLACEHOLDER_PHONE_PATTERNS, PLACEHOLDER_TEXT_VALUES } from "./placeholders.ts"

export type PhoneResult =
  | { readonly ok: true; readonly e164: string }
  | { readonly ok: false; readonly reason: "empty" | "invalid" }
  /** `kind` is the id of the matching PLACEHOLDER_PHONE_PATTERNS entry, or "text". */
  | { readonly ok: false; readonly reason: "placeholder"; readonly kind: string }

// Longest plausible formatted number; anything longer is not a phone number and
// is rejected before any regular expression or parser touches it.
const MAX_RAW_LENGTH = 64
// Separators PMS systems and humans put in numbers. Deliberately strict:
// letters, "ext. 12", "tel:" etc. make the value invalid rather than guessed at.
const FORMATTING = /[\s\-.()/]/g
const SHAPE = /^(?:\+|00)?\d+$/

/**
 * Normalise a guest phone number to E.164.
 *
 * A country code is mandatory: there is no default country, because a
 * reservation's property country says nothing about the guest's phone.
 * - "+34 600-11.12(22)" and "0034 600 111 222" give "+34600111222".
 * - Digits only ("34600111222") are read as if prefixed with "+", and accepted
 *   only when that parses as a valid number. This rescues PMS exports that
 *   strip the "+", at the (documented) risk that a national number happens to
 *   be valid in another country.
 * - Validity is libphonenumber's `isValid()` with full ("max") metadata.
 * - Placeholders (all zeros, 123456789, fictional ranges...) are reported as
 *   such, before validity, so "+34 000 000 000" is a placeholder and not
 *   merely invalid.
 */
export const normalisePhone = (raw: string): PhoneResult => {
  if (typeof raw !== "string") return { ok: false, reason: "invalid" }
  const trimmed = raw.trim()
  if (trimmed === "") return { ok: false, reason: "empty" }
  if (PLACEHOLDER_TEXT_VALUES.has(trimmed.toLowerCase())) {
    return { ok: false, reason: "placeholder", kind: "text" }
  }
  if (trimmed.length > MAX_RAW_LENGTH) return { ok: false, reason: "invalid" }

  const compact = trimmed.replace(FORMATTING, "")
  // Only separators (e.g. "( )", "+"): nothing was actually entered.
  if (compact === "" || compact === "+") return { ok: false, reason: "empty" }
  if (!SHAPE.test(compact)) return { ok: false, reason: "invalid" }

  const digits = compact.startsWith("+") ? compact.slice(1) : compact.startsWith("00") ? compact.slice(2) : compact

  const parsed = parsePhoneNumberFromString(`+${digits}`)
  // National number first (most specific kind), then the whole digit string,
  // which also covers numbers whose calling code is itself bogus ("+0000").
  const kind =
    (parsed === undefined ? undefined : placeholderKind(parsed.nationalNumber, parsed.countryCallingCode)) ??
    placeholderKind(digits, undefined)
  if (kind !== undefined) return { ok: false, reason: "placeholder", kind }
  if (parsed === undefined || !parsed.isValid()) return { ok: false, reason: "invalid" }
  return { ok: true, e164: parsed.number }
}

/**
 * Id of the first placeholder pattern matching `digits`. With `callingCode`
 * undefined, `digits` is the full digit string and only generic patterns
 * apply; otherwise `digits` is the national number and generic patterns plus
 * those for that calling code apply.
 */
const placeholderKind = (digits: string, callingCode: string | undefined): string | undefined => {
  for (const p of PLACEHOLDER_PHONE_PATTERNS) {
    const applies = p.callingCode === undefined || (callingCode !== undefined && p.callingCode === callingCode)
    if (applies && p.pattern.test(digits)) return p.id
  }
  return undefined
}
