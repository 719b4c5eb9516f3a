import { normaliseCountry } from "./country.ts"
import { codePointLength, truncateCodePoints } from "./text.ts"

export type AddressField = "street" | "city" | "postal_code" | "province" | "state" | "country"
export type Address = Partial<Record<AddressField, string>>

export interface NormaliseWarning {
  /** Path such as "address.city"; the caller prefixes e.g. "guests[0].". */
  readonly field: string
  readonly code: "truncated" | "dropped"
  readonly message: string
}

export interface AddressResult {
  /** Only the sub-fields that were sent with usable values; undefined if none. */
  readonly address: Address | undefined
  readonly warnings: ReadonlyArray<NormaliseWarning>
}

/** Maximum length, in Unicode code points, per the API contract. */
export const ADDRESS_FIELD_LIMITS: Readonly<Record<Exclude<AddressField, "country">, number>> = {
  street: 300,
  city: 200,
  postal_code: 40,
  province: 200,
  state: 200
}

// A hostile or broken payload can carry thousands of unknown keys; report a
// handful individually and summarise the rest so warnings stay bounded.
const MAX_UNKNOWN_KEY_WARNINGS = 10
const MAX_KEY_IN_PATH = 64

/**
 * Normalise a guest address sent by a PMS. Never throws: anything unusable is
 * dropped with a warning, and the rest of the guest is still processed.
 *
 * - `undefined`/`null` address: omitted, no warning.
 * - Not a plain object (string, array, number...): dropped, warning on "address".
 * - Sub-field `undefined`, `null`, "" or whitespace-only: treated as omitted,
 *   no warning. PMS exports fill unknown columns with "", which is not a
 *   request to erase what we know; the caller merges, so omitted must stay
 *   omitted.
 * - Strings are trimmed, lone UTF-16 surrogates are replaced by U+FFFD (they
 *   cannot be stored as jsonb), and values over the limit are truncated by
 *   code points (warning "truncated").
 * - postal_code may be a non-negative safe integer (many PMS export it as a
 *   number); it is converted to its decimal string. Leading zeros lost by the
 *   PMS cannot be recovered. Other non-strings are dropped.
 * - country: ISO alpha-2/alpha-3, normalised to alpha-2; otherwise dropped.
 * - Unknown sub-keys are dropped with a warning.
 */
export const normaliseAddress = (raw: unknown): AddressResult => {
  if (raw === undefined || raw === null) return { address: undefined, warnings: [] }
  if (!isPlainObject(raw)) {
    return {
      address: undefined,
      warnings: [{ field: "address", code: "dropped", message: `address must be an object, got ${describe(raw)}; dropped` }]
    }
  }
  const address: Address = {}
  const warnings: Array<NormaliseWarning> = []
  let unknown = 0
  for (const key of Object.keys(raw)) {
    if (!isAddressField(key)) {
      unknown++
      if (unknown <= MAX_UNKNOWN_KEY_WARNINGS) {
        warnings.push({ field: path(key), code: "dropped", message: `${path(key)} is not an address field; dropped` })
      }
      continue
    }
    const value = normaliseField(key, raw[key], warnings)
    if (value !== undefined) address[key] = value
  }
  if (unknown > MAX_UNKNOWN_KEY_WARNINGS) {
    const more = unknown - MAX_UNKNOWN_KEY_WARNINGS
    warnings.push({ field: "address", code: "dropped", message: `${more} more unknown address fields dropped` })
  }
  return { address: Object.keys(address).length > 0 ? address : undefined, warnings }
}

const normaliseField = (key: AddressField, value: unknown, warnings: Array<NormaliseWarning>): string | undefined => {
  const field = path(key)
  if (value === undefined || value === null) return undefined
  let text: string
  if (typeof value === "string") text = value
  else if (key === "postal_code" && typeof value === "number" && Number.isSafeInteger(value) && value >= 0) text = String(value)
  else {
    warnings.push({ field, code: "dropped", message: `${field} must be a string, got ${describe(value)}; dropped` })
    return undefined
  }
  text = text.toWellFormed().trim()
  if (text === "") return undefined

  if (key === "country") {
    const code = normaliseCountry(text)
    if (code === undefined) {
      const shown = JSON.stringify(truncateCodePoints(text, 20))
      warnings.push({ field, code: "dropped", message: `${field} ${shown} is not an ISO 3166-1 alpha-2 or alpha-3 code; dropped` })
    }
    return code
  }
  const limit = ADDRESS_FIELD_LIMITS[key]
  if (codePointLength(text) <= limit) return text
  warnings.push({ field, code: "truncated", message: `${field} exceeds ${limit} characters; truncated to ${limit}` })
  // trimEnd keeps the result a fixed point: normalising it again changes nothing.
  return truncateCodePoints(text, limit).trimEnd()
}

const FIELDS: ReadonlySet<string> = new Set<AddressField>(["street", "city", "postal_code", "province", "state", "country"])
const isAddressField = (key: string): key is AddressField => FIELDS.has(key)

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false
  const proto: unknown = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

// Keys come from untrusted JSON: keep paths short and unambiguous.
const path = (key: string): string => {
  const short = codePointLength(key) > MAX_KEY_IN_PATH ? `${truncateCodePoints(key, MAX_KEY_IN_PATH)}…` : key
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(short) ? `address.${short}` : `address[${JSON.stringify(short.toWellFormed())}]`
}

const describe = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v)
