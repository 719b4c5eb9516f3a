import {
  OTA_RELAY_EMAIL_DOMAINS,
  PLACEHOLDER_EMAIL_DOMAINS,
  PLACEHOLDER_EMAIL_LOCAL_PARTS,
  PLACEHOLDER_EMAILS,
  PLACEHOLDER_TEXT_VALUES
} from "./placeholders.ts"

/**
 * Why an address was classed as a placeholder, so a caller can apply its own
 * policy (e.g. keep an OTA relay for messaging but not for identity matching).
 */
export type EmailPlaceholderKind = "text" | "listed" | "role" | "reserved-domain" | "ota-relay"

export type EmailResult =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly reason: "empty" | "invalid" }
  | { readonly ok: false; readonly reason: "placeholder"; readonly kind: EmailPlaceholderKind }

const MAX_LENGTH = 254 // RFC 5321 path limit minus the angle brackets
// RFC 5322 dot-atom local part (no quoted strings, no leading/trailing/double
// dots). ASCII only: internationalised addresses are rare in PMS data and
// accepting them would need IDNA handling we do not want here.
const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i
// Host labels: letters/digits/hyphens, 1-63 chars, no leading/trailing hyphen.
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i
// TLD: letters only, or a punycode IDN TLD ("xn--p1ai").
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i

/**
 * Normalise a guest e-mail address: trim, syntax check, lower-case, then
 * placeholder detection.
 *
 * The whole address is lower-cased, local part included: RFC 5321 says local
 * parts may be case-sensitive, but no mainstream provider treats them so and
 * identity resolution needs one canonical spelling.
 *
 * The syntax check runs on the trimmed input BEFORE lower-casing, so that
 * non-ASCII characters which lower-case to ASCII (KELVIN SIGN -> "k") are
 * rejected rather than silently turned into a different address.
 *
 * Placeholders are detected even when the syntax is broken ("noreply@",
 * "x@invalid"): the sender clearly meant "no address", which is more useful
 * to report than "invalid".
 */
export const normaliseEmail = (raw: string): EmailResult => {
  if (typeof raw !== "string") return { ok: false, reason: "invalid" }
  const trimmed = raw.trim()
  if (trimmed === "") return { ok: false, reason: "empty" }
  const lower = trimmed.toLowerCase()
  if (PLACEHOLDER_TEXT_VALUES.has(lower)) return { ok: false, reason: "placeholder", kind: "text" }

  const kind = placeholderKind(lower)
  if (kind !== undefined) return { ok: false, reason: "placeholder", kind }
  if (!isValidSyntax(trimmed)) return { ok: false, reason: "invalid" }
  return { ok: true, email: lower }
}

const isValidSyntax = (address: string): boolean => {
  if (address.length > MAX_LENGTH) return false
  const at = address.indexOf("@")
  if (at < 1 || at !== address.lastIndexOf("@")) return false
  const local = address.slice(0, at)
  const domain = address.slice(at + 1)
  if (local.length > 64 || !LOCAL.test(local)) return false
  const labels = domain.split(".")
  const tld = labels[labels.length - 1]
  return labels.length >= 2 && labels.every((l) => LABEL.test(l)) && tld !== undefined && TLD.test(tld)
}

const placeholderKind = (lower: string): EmailPlaceholderKind | undefined => {
  if (PLACEHOLDER_EMAILS.has(lower)) return "listed"
  const at = lower.lastIndexOf("@")
  if (at < 0) return undefined
  const local = lower.slice(0, at)
  const domain = lower.slice(at + 1)
  if (inDomainSet(domain, OTA_RELAY_EMAIL_DOMAINS)) return "ota-relay"
  if (inDomainSet(domain, PLACEHOLDER_EMAIL_DOMAINS)) return "reserved-domain"
  // "noreply+bounce@..." is still noreply: compare without the "+tag".
  const plus = local.indexOf("+")
  const base = plus < 0 ? local : local.slice(0, plus)
  if (PLACEHOLDER_EMAIL_LOCAL_PARTS.has(base)) return "role"
  return undefined
}

/** True when `domain` is in `set` or is a subdomain of an entry. */
const inDomainSet = (domain: string, set: ReadonlySet<string>): boolean => {
  if (set.has(domain)) return true
  for (let i = domain.indexOf("."); i >= 0; i = domain.indexOf(".", i + 1)) {
    if (set.has(domain.slice(i + 1))) return true
  }
  return false
}
