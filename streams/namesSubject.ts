import { normalisePhone } from "../core/normalise/phone.ts"
import type { Identifier } from "../core/privacy/identifier.ts"
import type { TenantScope } from "../core/TenantScope.ts"
import type { StreamMatcher } from "./eraseMessages.ts"
import { decode } from "./msgpack.ts"

/** What names a data subject in a stream message (a privacy request's `Subject` is one). */
export interface SubjectTerms {
  /** When given, a message of another tenant or mode (its top-level `tenant_id` / `sandbox`) never matches. */
  readonly scope?: TenantScope
  readonly contactIds: ReadonlyArray<string>
  /** Normalised: E.164 phones, lower-cased emails. */
  readonly identifiers: ReadonlyArray<Identifier>
  /** First, last or full names, matched whole (case-insensitive); used only with `scope`, or other tenants' guests would match. */
  readonly names?: ReadonlyArray<string>
}

/** Nodes of one message walked at most, and how deep: a message is ours, but no message makes the scan unbounded. */
const MAX_NODES = 100_000
const MAX_DEPTH = 24
/** Strings that look like JSON (a webhook job's body) are parsed up to this length and walked as values. */
const MAX_JSON = 1_000_000
const PHONE_SHAPED = /^[\s\-.()/+\d]{7,40}$/
const EMAIL_LOCAL = /[a-z0-9.!#$%&'*+/=?^_`{|}~-]/
const DOMAIN = /[a-z0-9-]/
const DIGIT = /\d/

const text = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

/** Whether `needle` occurs in `hay` with acceptable characters on both sides. */
const occursBounded = (hay: string, needle: string, before: (c: string | undefined) => boolean, after: (at: number) => boolean): boolean => {
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    if (before(hay[at - 1]) && after(at + needle.length)) return true
  }
  return false
}

/**
 * The default matcher of an erasure's stream scan: true when any string of the message (walked through objects,
 * arrays, maps, nested msgpack bytes and JSON texts such as a webhook job's body; the bytes as UTF-8 when they are no
 * msgpack) names the subject:
 * - contains one of its contact ids (case-insensitive: a UUID does not occur by chance);
 * - contains one of its emails as a whole address (`anna@x.com` in `Dear anna@x.com,` but not in `hanna@x.com` or
 *   `anna@x.com.au`), case-insensitive;
 * - contains one of its phones' digits as a whole number (`+34600111222`, `0034600111222` are one of them; digits
 *   around it make another number), or is a formatted phone that normalises to one (`+34 600 11 12 22`);
 * - equals one of its names, when given.
 * Over-matching costs a message of a consumer that is done with it (a drained stream) or, on a work queue, another
 * guest's pending delivery: hence whole-address and whole-number matches, and the scope.
 */
export const namesSubject = (terms: SubjectTerms): StreamMatcher => {
  const ids = [...new Set(terms.contactIds.map((id) => id.toLowerCase()))]
  const emails = [...new Set(terms.identifiers.filter((i) => i.kind === "email").map((i) => i.value.toLowerCase()))]
  const phones = new Set(terms.identifiers.filter((i) => i.kind === "phone").map((i) => i.value))
  const phoneDigits = [...phones].map((p) => p.replace(/\D/g, "")).filter((d) => d.length >= 6)
  const phoneTails = phoneDigits.map((d) => d.slice(-6))
  const names = new Set((terms.scope === undefined ? [] : terms.names ?? []).map((n) => n.trim().toLowerCase()).filter((n) => n.length >= 2))

  const emailBefore = (c: string | undefined) => c === undefined || !EMAIL_LOCAL.test(c)
  const notDigit = (c: string | undefined) => c === undefined || !DIGIT.test(c)

  const namesIn = (s: string): boolean => {
    if (s.length < 2) return false
    const lower = s.toLowerCase()
    if (names.size > 0 && names.has(lower.trim())) return true
    for (const id of ids) if (lower.includes(id)) return true
    for (const email of emails) {
      const emailAfter = (at: number) => {
        const c = lower[at]
        if (c === undefined) return true
        if (c === ".") return !DOMAIN.test(lower[at + 1] ?? "")
        return !DOMAIN.test(c)
      }
      if (occursBounded(lower, email, emailBefore, emailAfter)) return true
    }
    for (const digits of phoneDigits) {
      if (occursBounded(s, digits, notDigit, (at) => notDigit(s[at]))) return true
    }
    if (phones.size > 0 && PHONE_SHAPED.test(s)) {
      // Formatting changes neither a number's digits nor its last ones: only a candidate pays for the parser.
      const digits = s.replace(/\D/g, "")
      if (phoneTails.some((tail) => digits.endsWith(tail))) {
        const p = normalisePhone(s)
        if (p.ok && phones.has(p.e164)) return true
      }
    }
    return false
  }

  const walk = (value: unknown, budget: { nodes: number }, depth: number): boolean => {
    if (--budget.nodes < 0 || depth > MAX_DEPTH) return false
    if (typeof value === "string") {
      if (namesIn(value)) return true
      const t = value.trimStart()
      if ((t.startsWith("{") || t.startsWith("[")) && value.length <= MAX_JSON) {
        try {
          return walk(JSON.parse(value), budget, depth + 1)
        } catch {
          return false
        }
      }
      return false
    }
    if (value instanceof Uint8Array) {
      // Nested msgpack (an encoded payload kept as bytes) or text: both looked at, as neither says which it is.
      if (namesIn(text(value))) return true
      try {
        return walk(decode(value), budget, depth + 1)
      } catch {
        return false
      }
    }
    if (Array.isArray(value)) return value.some((v) => walk(v, budget, depth + 1))
    if (value instanceof Map) {
      for (const [k, v] of value) if (walk(k, budget, depth + 1) || walk(v, budget, depth + 1)) return true
      return false
    }
    if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) if (namesIn(k) || walk(v, budget, depth + 1)) return true
    }
    return false
  }

  const otherScope = (value: unknown): boolean => {
    if (terms.scope === undefined || value === null || typeof value !== "object") return false
    const { tenant_id, sandbox } = value as { readonly tenant_id?: unknown; readonly sandbox?: unknown }
    return (typeof tenant_id === "string" && tenant_id.toLowerCase() !== terms.scope.tenant_id.toLowerCase()) ||
      (typeof sandbox === "boolean" && sandbox !== terms.scope.sandbox)
  }

  return (decoded, raw) =>
    decoded === undefined
      ? namesIn(text(raw))
      : !otherScope(decoded) && walk(decoded, { nodes: MAX_NODES }, 0)
}
