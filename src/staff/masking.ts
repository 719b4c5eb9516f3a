// What a viewer session sees of personal contact data: every email address and phone number in an answer partly
// hidden (`an***@example.com`, `+44*******789`). Applied once, to the whole JSON answer at the edge
// (src/staff/sessionEdge.ts), so no route can forget it. Masking is idempotent: a masked answer masked again is the same.

/** Keys whose string values are an email address or a phone number (or either: a message's `to`). */
const CONTACT_KEY = /(^|_)(e?mail|emails|phone|phones|mobile|msisdn|wa_id|whatsapp|to|from|recipient|number|tel|address)($|_)/i

/** An email address inside any text. The local part may hold `*` (RFC 5322 allows it; a masked address holds it). */
const EMAIL_IN_TEXT = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/g

/**
 * An international number inside any text: `+`, then digits (or a masked number's `*`) with the usual separators. A
 * number without its `+` is recognised only under a contact key: in free text, digits without `+` are too often a
 * date, an amount or an id. Not followed by `@` or a letter: that is an address's local part, masked as an address.
 */
const PHONE_IN_TEXT = /\+[0-9*](?:[0-9*]|[ ().-](?=[0-9*( ])){5,24}(?![0-9*@A-Za-z])/g

/** The local part's first characters shown: at most 2, fewer for a short one, none past a `*` (already masked). */
export const maskEmail = (address: string): string => {
  const at = address.lastIndexOf("@")
  if (at < 0) return address
  const local = address.slice(0, at)
  const star = local.indexOf("*")
  const shown = star >= 0 ? Math.min(star, 2) : Math.min(2, Math.max(local.length - 1, 0))
  return `${local.slice(0, shown)}***${address.slice(at)}`
}

/** The first 2 and last 3 digits shown (all hidden below 6), a leading `+` kept, separators dropped. */
export const maskPhone = (number: string): string => {
  const digits = number.replace(/[^0-9*]/g, "")
  const plus = number.trimStart().startsWith("+") ? "+" : ""
  if (digits.length < 6) return plus + "*".repeat(digits.length)
  return `${plus}${digits.slice(0, 2)}${"*".repeat(digits.length - 5)}${digits.slice(-3)}`
}

const digitCount = (s: string) => s.replace(/[^0-9*]/g, "").length

/** Every email address and `+` number within a text masked. */
export const maskText = (text: string): string =>
  text.replace(EMAIL_IN_TEXT, maskEmail).replace(PHONE_IN_TEXT, (m) => (digitCount(m) >= 7 ? maskPhone(m) : m))

const PHONE_VALUE = /^\s*\+?[0-9*][0-9*\s().-]*$/
/** `from` and `to` also bound date ranges: a date is no number. */
const DATE_VALUE = /^\s*\d{4}-\d{2}-\d{2}/

/** A value under a contact key: an address, a number (with or without `+`), or text holding them. */
const maskContactValue = (value: string): string => {
  if (value.includes("@")) {
    const masked = maskText(value)
    // An address the text pattern does not know (`ana@localhost`): hidden whole but for its domain.
    return masked === value && !value.includes("***@") ? maskEmail(value.trim()) : masked
  }
  return PHONE_VALUE.test(value) && !DATE_VALUE.test(value) && digitCount(value) >= 7 ? maskPhone(value) : maskText(value)
}

/** JSON carried as text (a webhook's payload, a stored request body): masked as JSON, then written back. */
const JSON_TEXT_LIMIT = 1_000_000
const maskJsonText = (text: string): string | undefined => {
  const t = text.trimStart()
  if ((t[0] !== "{" && t[0] !== "[") || text.length > JSON_TEXT_LIMIT) return undefined
  try {
    return JSON.stringify(maskValue(JSON.parse(text), false))
  } catch {
    return undefined
  }
}

const maskString = (value: string, contactKey: boolean): string =>
  maskJsonText(value) ?? (contactKey ? maskContactValue(value) : maskText(value))

/** Any JSON value with every address and number masked; `contactKey`: the value sits under a contact key. */
export const maskValue = (value: unknown, contactKey = false): unknown => {
  if (typeof value === "string") return maskString(value, contactKey)
  if (Array.isArray(value)) return value.map((v) => maskValue(v, contactKey))
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = maskValue(v, CONTACT_KEY.test(k))
    return out
  }
  return value
}
