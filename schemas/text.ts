import { Schema } from "effect"

/**
 * The text policy of the contract edge, one place for every family: a string holding NUL (U+0000, which PostgreSQL
 * text and jsonb cannot store) or a UTF-16 surrogate without its pair (not Unicode text: jsonb refuses it, other
 * systems mangle it) is refused with 400 naming the field. It applies to every string of a request body, to path and
 * query parameters, and to the keys and strings of free-form objects; such text is never stored, never published.
 *
 * With the `u` flag a surrogate pair is one code point (outside D800-DFFF), so the class below matches exactly NUL
 * and the unpaired surrogates.
 */
const UNSAFE_CHARACTER = /[\u0000\uD800-\uDFFF]/u
const SAFE_TEXT = /^[^\u0000\uD800-\uDFFF]*$/u

export const TEXT_POLICY_MESSAGE = "must not contain NUL (U+0000) or an unpaired UTF-16 surrogate"

/** The text policy as a predicate. */
export const isSafeText = (s: string): boolean => !UNSAFE_CHARACTER.test(s)

/** The text policy as a Schema check (documented in OpenAPI as the string's `pattern`). */
export const SafeText = Schema.isPattern(SAFE_TEXT, { message: TEXT_POLICY_MESSAGE })

/**
 * A string under the text policy: the base of every string a request carries (body fields, path and query
 * parameters). Build narrower strings on it (`SafeString.check(...)`), never on `Schema.String`.
 */
export const SafeString = Schema.String.check(SafeText)

/** Text shown back to a client (a field path in `details`) with the refused characters written as `\uXXXX`. */
export const printable = (s: string): string =>
  s.replace(/[\u0000\uD800-\uDFFF]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * A field's place in a request body as answers name it (`details` of a 400, `field` of a warning):
 * `guests[0].phone_number`, `metadata.source`; the empty path is the body itself.
 */
export const fieldPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string =>
  path.reduce<string>((acc, segment) => {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment
    if (typeof key === "number") return `${acc}[${key}]`
    // A refused key (NUL, an unpaired surrogate) is named with those characters written as \uXXXX.
    const name = printable(String(key))
    return acc === "" ? name : `${acc}.${name}`
  }, "")

/** Bounds of a free-form JSON value (metadata, payloads, properties, mappings). */
export interface FreeFormLimits {
  /** Levels of objects and arrays, the free-form value itself being the first. */
  readonly maxDepth: number
  /** Object keys at all levels together. */
  readonly maxKeys: number
  /** Size of the value encoded as JSON, in UTF-8 bytes. */
  readonly maxBytes: number
}

export const FREE_FORM_LIMITS: FreeFormLimits = { maxDepth: 32, maxKeys: 1_000, maxBytes: 64 * 1024 }

export interface FreeFormIssue {
  /** Where inside the value (empty: the value as a whole). */
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

const MAX_ISSUES = 20

/**
 * Why a free-form JSON value is refused: text-policy violations in its keys and strings (each with its path), a
 * non-finite number, nesting past `maxDepth`, more than `maxKeys` keys, more than `maxBytes` as JSON. The walk is
 * iterative and stops early on a hostile value (thousands of levels, millions of elements), so checking never
 * overflows the stack or runs long; JSON.stringify runs only once the depth is known to be bounded.
 */
export const freeFormIssues = (value: unknown, limits: FreeFormLimits = FREE_FORM_LIMITS): Array<FreeFormIssue> => {
  const issues: Array<FreeFormIssue> = []
  const tooLarge = { path: [], message: `must be at most ${limits.maxBytes} bytes as JSON` }
  // Each JSON value takes at least one byte plus a separator: past this many the size bound is already broken.
  const maxNodes = Math.ceil(limits.maxBytes / 2)
  const stack: Array<{ readonly v: unknown; readonly path: ReadonlyArray<string | number>; readonly depth: number }> = [
    { v: value, path: [], depth: 1 }
  ]
  let keys = 0
  let nodes = 1
  let tooDeep = false
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const { v, path, depth } = stack.pop()!
    if (typeof v === "string") {
      if (!isSafeText(v)) issues.push({ path, message: TEXT_POLICY_MESSAGE })
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) issues.push({ path, message: "must be a finite number" })
    } else if (typeof v === "object" && v !== null) {
      if (depth > limits.maxDepth) {
        if (!tooDeep) issues.push({ path: [], message: `must not nest objects and arrays more than ${limits.maxDepth} levels deep` })
        tooDeep = true
        continue
      }
      // Counted before anything is pushed, so a huge array or object is refused without being walked.
      const names = Array.isArray(v) ? undefined : Object.keys(v)
      nodes += names === undefined ? (v as ReadonlyArray<unknown>).length : names.length
      if (nodes > maxNodes) return [...issues, tooLarge]
      if (names === undefined) {
        const items = v as ReadonlyArray<unknown>
        for (let i = items.length - 1; i >= 0; i--) stack.push({ v: items[i], path: [...path, i], depth: depth + 1 })
      } else {
        keys += names.length
        if (keys > limits.maxKeys) return [...issues, { path: [], message: `must hold at most ${limits.maxKeys} keys (all levels together)` }]
        for (let i = names.length - 1; i >= 0; i--) {
          const k = names[i]!
          if (!isSafeText(k)) issues.push({ path: [...path, k], message: `has a key that ${TEXT_POLICY_MESSAGE}` })
          stack.push({ v: (v as Record<string, unknown>)[k], path: [...path, k], depth: depth + 1 })
        }
      }
    } else if (typeof v !== "boolean" && v !== null) {
      issues.push({ path, message: "must be a JSON value" })
    }
  }
  if (issues.length === 0 && Buffer.byteLength(JSON.stringify(value)) > limits.maxBytes) issues.push(tooLarge)
  return issues
}

const freeFormCheck = (limits: FreeFormLimits) =>
  Schema.makeFilter((v: unknown) => freeFormIssues(v, limits).map((i) => ({ path: i.path, issue: i.message })), {
    description: `free-form JSON: at most ${limits.maxDepth} levels deep, ${limits.maxKeys} keys and ${limits.maxBytes} bytes; ` +
      `no key or string with NUL or an unpaired surrogate`,
    // An OpenAPI extension, so tools (and the edge fuzz test) know the bounds of a free-form value.
    toJsonSchema: () => ({ "x-free-form": { ...limits } }) as never
  })

/**
 * A free-form JSON object (`metadata`, `payload`, `properties`, custom-field values, mappings): any keys and values,
 * under the text policy and bounded in depth, key count and encoded size. Refused at the ingress, naming the field
 * (and the path inside it), so nothing the worker cannot decode or store ever reaches a stream.
 */
export const FreeFormObject = (limits: Partial<FreeFormLimits> = {}) =>
  Schema.Record(Schema.String, Schema.Unknown).check(freeFormCheck({ ...FREE_FORM_LIMITS, ...limits }))

/**
 * Any JSON object, described for the document only (x-free-form, as FreeFormObject writes it): the body of a route
 * outside HttpApi whose handler reads it itself (a partner's webhook, Meta's envelope), bounded by that route's limit.
 */
export const DocumentedFreeForm = (maxBytes: number) =>
  Schema.Record(Schema.String, Schema.Unknown).check(Schema.makeFilter(() => true, {
    toJsonSchema: () => ({ "x-free-form": { maxBytes } }) as never
  }))

/**
 * Any JSON value, taken as it is (no recursive decode: a value thousands of levels deep costs nothing here). Declared
 * rather than `Schema.Unknown` so the checks on it appear in the JSON Schema (Unknown's are left out).
 */
export const JsonValue = Schema.declare((_: unknown): _ is unknown => true, { expected: "a JSON value", toCodecJson: () => undefined })

/** Any free-form JSON value (object, array, string, number...) under the same rules as `FreeFormObject`. */
export const FreeFormValue = (limits: Partial<FreeFormLimits> = {}) =>
  JsonValue.check(freeFormCheck({ ...FREE_FORM_LIMITS, ...limits }))

/**
 * The items of a batch body: each is decoded on its own by the handler with its family's schema (so one bad item is
 * answered on its own and never fails the batch), and the text policy applies there. The marker tells the edge policy
 * test that these unconstrained items are deliberate.
 */
export const BatchItems = (itemSchema: string, description: string) =>
  Schema.Array(Schema.Unknown).check(Schema.makeFilter(() => undefined, {
    toJsonSchema: () => ({ "x-items-decoded-as": itemSchema }) as never
  })).annotate({ description })
