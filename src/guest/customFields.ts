import type { FieldType } from "../../schemas/fields.ts"

export interface FieldRule {
  readonly field_key: string
  readonly field_type: FieldType
  readonly options: ReadonlyArray<string> | null
}

export type CustomFieldCheck =
  | { readonly ok: true; readonly values: Record<string, unknown> }
  | { readonly ok: false; readonly details: Record<string, Array<string>> }

const isRealDate = (s: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (!m) return false
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!))
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!
}
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** The value in its stored form, or the message saying why it does not fit the field's type. */
const check = (rule: FieldRule, value: unknown): { value: unknown } | { error: string } => {
  if (value === null) return { value: null } // null clears the field
  const options = rule.options ?? []
  switch (rule.field_type) {
    case "string":
      return typeof value === "string" && value.length <= 255 ? { value } : { error: "must be a string of at most 255 characters" }
    case "text":
      return typeof value === "string" && value.length <= 10_000 ? { value } : { error: "must be a string of at most 10000 characters" }
    case "number":
      // Exact in JavaScript and PostgreSQL alike (jsonb would take more, the clients reading it back would not).
      return typeof value === "number" && Math.abs(value) <= Number.MAX_SAFE_INTEGER
        ? { value }
        : { error: `must be a number from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}` }
    case "boolean":
      return typeof value === "boolean" ? { value } : { error: "must be true or false" }
    case "date":
      return typeof value === "string" && isRealDate(value) ? { value } : { error: "must be a real date formatted YYYY-MM-DD" }
    case "datetime":
      return typeof value === "string" && ISO_DATETIME.test(value) && !Number.isNaN(Date.parse(value))
        ? { value: new Date(value).toISOString() }
        : { error: "must be an ISO 8601 date-time with a timezone offset" }
    case "select":
      return typeof value === "string" && options.includes(value) ? { value } : { error: `must be one of: ${options.join(", ")}` }
    case "multiselect":
      return Array.isArray(value) && value.every((v) => typeof v === "string" && options.includes(v))
        ? { value: [...new Set(value as Array<string>)] }
        : { error: `must be an array of: ${options.join(", ")}` }
  }
}

/** Checks custom field values against the tenant's definitions; unknown keys are refused, naming the known ones. */
export const checkCustomFields = (values: Record<string, unknown>, rules: ReadonlyArray<FieldRule>): CustomFieldCheck => {
  const byKey = new Map(rules.map((r) => [r.field_key, r]))
  const details: Record<string, Array<string>> = {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) {
    const rule = byKey.get(key)
    if (!rule) {
      const known = [...byKey.keys()]
      details[`custom_fields.${key}`] = [known.length === 0
        ? "is not a defined custom field (this account defines none yet: POST /api/v1/fields)"
        : `is not a defined custom field (defined: ${known.slice(0, 20).join(", ")})`]
      continue
    }
    const r = check(rule, value)
    if ("error" in r) details[`custom_fields.${key}`] = [r.error]
    else out[key] = r.value
  }
  return Object.keys(details).length > 0 ? { ok: false, details } : { ok: true, values: out }
}
