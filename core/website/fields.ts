import { isSafeText, printable } from "../../schemas/text.ts"

// Field checks of the website-event contract: each answers undefined (fine) or the message naming what is wrong.

export interface Issue {
  readonly field: string
  readonly message: string
}

export type Check = (v: unknown) => string | undefined

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

export const text = (min: number, max: number, pattern?: RegExp, patternMessage?: string): Check => (v) => {
  if (typeof v !== "string") return "must be a string"
  if (!isSafeText(v)) return "must not contain NUL (U+0000) or an unpaired UTF-16 surrogate"
  if (v.length < min) return min === 1 ? "must not be empty" : `must be at least ${min} characters`
  if (v.length > max) return `must be at most ${max} characters`
  if (pattern !== undefined && !pattern.test(v)) return patternMessage ?? `must match ${pattern.source}`
  return undefined
}

export const int = (min: number, max: number): Check => (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? undefined : `must be an integer from ${min} to ${max}`

export const num = (min: number, max: number): Check => (v) =>
  typeof v === "number" && Number.isFinite(v) && v >= min && v <= max ? undefined : `must be a number from ${min} to ${max}`

export const bool: Check = (v) => (typeof v === "boolean" ? undefined : "must be true or false")

export const oneOf = (values: ReadonlyArray<string>): Check => (v) =>
  typeof v === "string" && values.includes(v) ? undefined : `must be one of ${values.join(", ")}`

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/

/** A real calendar date (no 31 February). */
export const realDate = (y: number, m: number, d: number) => {
  const t = new Date(Date.UTC(y, m - 1, d))
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d
}

export const dateTime: Check = (v) => {
  const problem = "must be a date-time with an offset, e.g. 2026-05-01T10:00:00Z"
  if (typeof v !== "string" || v.length > 40) return problem
  const m = DATE_TIME.exec(v)
  if (m === null || !realDate(+m[1]!, +m[2]!, +m[3]!) || +m[4]! > 23 || +m[5]! > 59 || (m[6] !== undefined && +m[6] > 59)) return problem
  if (m[8] !== undefined && (+m[8] > 23 || +m[9]! > 59)) return problem
  return Number.isNaN(Date.parse(v)) ? problem : undefined
}

export const date: Check = (v) => {
  const problem = "must be a real date written YYYY-MM-DD"
  if (typeof v !== "string") return problem
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v)
  return m !== null && realDate(+m[1]!, +m[2]!, +m[3]!) ? undefined : problem
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const uuid: Check = (v) => (typeof v === "string" && UUID.test(v) ? undefined : "must be a UUID")

export const httpsUrl = (max: number): Check => (v) => {
  const t = text(1, max)(v)
  if (t !== undefined) return t
  try {
    const u = new URL(v as string)
    return u.protocol === "https:" && u.hostname !== "" ? undefined : "must be an https link"
  } catch {
    return "must be an https link"
  }
}

/**
 * Checks an object against its field table: unknown keys refused, required keys present, each value checked.
 * Returns the issues, each field named with `prefix`.
 */
export const checkObject = (
  value: unknown,
  prefix: string,
  table: Readonly<Record<string, Check>>,
  required: ReadonlyArray<string> = []
): Array<Issue> => {
  // A key is named as the client can read it back and as jsonb can store it (the delivery log keeps the issues).
  const name = (k: string) => (prefix === "" ? printable(k) : `${prefix}.${printable(k)}`)
  if (!isObject(value)) return [{ field: prefix === "" ? "(event)" : prefix, message: "must be an object" }]
  const issues: Array<Issue> = []
  for (const k of Object.keys(value)) {
    const check = Object.hasOwn(table, k) ? table[k] : undefined
    if (check === undefined) issues.push({ field: name(k), message: "is not a field of the contract (unknown keys are refused)" })
    else if (value[k] === null) issues.push({ field: name(k), message: "must not be null (leave the field out instead)" })
    else {
      const problem = check(value[k])
      if (problem !== undefined) issues.push({ field: name(k), message: problem })
    }
  }
  for (const k of required) if (!Object.hasOwn(value, k)) issues.push({ field: name(k), message: "is required" })
  return issues
}
