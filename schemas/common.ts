import { Schema } from "effect"
import { SafeString } from "./text.ts"

export { BatchItems, FreeFormObject, FreeFormValue, SafeString } from "./text.ts"

const isRealDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (!m) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (y < 1900 || y > 2199) return false
  const dt = new Date(Date.UTC(y, mo - 1, d))
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d
}

/** A calendar date `YYYY-MM-DD` that exists (no 2026-02-30), years 1900 to 2199. */
export const DateString = SafeString.check(
  Schema.makeFilter((s: string) => isRealDate(s) || "must be a real date formatted YYYY-MM-DD (years 1900-2199)")
).annotate({ description: "YYYY-MM-DD", format: "date" })

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** ISO 8601 timestamp carrying an explicit offset or Z. */
export const DateTimeWithOffset = SafeString.check(
  Schema.makeFilter((s: string) =>
    (ISO_WITH_OFFSET.test(s) && !Number.isNaN(Date.parse(s)) && isRealDate(s.slice(0, 10))) ||
    "must be an ISO 8601 date-time with a timezone offset, e.g. 2026-05-01T14:30:00+02:00"
  )
).annotate({ format: "date-time" })

export const maxLength = (n: number) =>
  SafeString.check(Schema.makeFilter((s: string) => [...s].length <= n || `must be at most ${n} characters`))

export const NonEmptyString = SafeString.check(
  Schema.makeFilter((s: string) => s.trim().length > 0 || "must not be empty")
)

export const CurrencyCode = SafeString.check(
  Schema.makeFilter((s: string) => /^[A-Za-z]{3}$/.test(s) || "must be an ISO 4217 code of three letters, e.g. EUR")
)

/** A number from `min` to `max` (both included): every number a request carries has the bounds its column and meaning hold. */
export const boundedNumber = (min: number, max: number) =>
  Schema.Finite.check(Schema.isBetween({ minimum: min, maximum: max }, { message: `must be a number from ${min} to ${max}` }))

/** An integer from `min` to `max` (both included). */
export const boundedInt = (min: number, max: number) =>
  Schema.Int.check(Schema.isBetween({ minimum: min, maximum: max }, { message: `must be an integer from ${min} to ${max}` }))

/** Money in the currency's units: a trillion either way holds any hotel's totals in any currency (IDR and VND included). */
export const MAX_AMOUNT = 1_000_000_000_000
export const Amount = boundedNumber(-MAX_AMOUNT, MAX_AMOUNT)

/** Units of an extra: more than zero, at most a hundred thousand. */
export const Quantity = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100_000, exclusiveMinimum: true }, {
  message: "must be a number greater than 0 and at most 100000"
}))

/** A number with no meaning of its own (an id, a custom value): exact in JavaScript and PostgreSQL alike. */
export const SafeNumber = boundedNumber(-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)

/** A UUID in its canonical text form (any version), case aside. */
export const isUuid = (s: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

export const Uuid = SafeString.check(
  Schema.makeFilter((s: string) =>
    isUuid(s) || "must be a UUID"
  )
)

export const oneOf = <const L extends ReadonlyArray<string>>(values: L) =>
  Schema.Literals(values).annotate({ message: `must be one of: ${values.join(", ")}` })

export const Warning = Schema.Struct({
  field: Schema.String,
  code: Schema.String,
  message: Schema.String
})
export type Warning = typeof Warning.Type

/** A local wall-clock time `HH:MM`, 24 h. */
export const LocalTime = SafeString.check(Schema.makeFilter((s: string) =>
  /^([01]\d|2[0-3]):[0-5]\d$/u.test(s) || "must be a local time HH:MM (00:00 to 23:59)"
)).annotate({ description: "HH:MM, 24 h" })

/** A language as the platform takes it: ISO 639-1 letters, then optional BCP 47 subtags (`en`, `pt-BR`, `es_ES`). */
export const LanguageCode = maxLength(35).check(Schema.makeFilter((s: string) =>
  /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/u.test(s) || "must be a language code such as en, pt-BR or es_ES"))
