import { MAX_LIST, MAX_STRING, type Leaf } from "../../schemas/segment.ts"
import { CUSTOM_PREFIX, type CustomFieldDef, type Field, fieldOf, type FieldType } from "./catalog.ts"
import { DAY_MS, dayOf, instantOf } from "./time.ts"

// A leaf `{ field, op, value }` judged against the catalogue and turned into the argument both evaluators apply
// (predicate.ts): validation reports its faults, the evaluators use its result. One function, so what validation
// accepts is exactly what the evaluators understand.

export const OPERATORS: Readonly<Record<FieldType, ReadonlyArray<string>>> = {
  string: ["eq", "neq", "in", "not_in", "contains", "starts_with", "exists"],
  number: ["eq", "neq", "gt", "gte", "lt", "lte", "between", "exists"],
  date: ["before", "after", "between", "within_last", "within_next", "exists"],
  datetime: ["before", "after", "between", "within_last", "within_next", "exists"],
  boolean: ["eq", "neq", "exists"],
  tags: ["contains_any", "contains_all", "contains_none", "exists"]
}

/**
 * A bound of a range: a number (numbers), a day number (dates) or an instant in ms (date-times); for dates `rel`
 * means days from today, today being the stay hotel's local date inside `has_stay` and the UTC date elsewhere, so it
 * is resolved per row.
 */
export interface Bound { readonly at: number; readonly rel: boolean; readonly strict: boolean }

export type Arg =
  | { readonly kind: "exists" }
  | { readonly kind: "eq"; readonly value: string | number | boolean }
  | { readonly kind: "in"; readonly values: ReadonlyArray<string> }
  | { readonly kind: "contains" | "starts_with"; readonly value: string }
  | { readonly kind: "range"; readonly lo?: Bound; readonly hi?: Bound }
  | { readonly kind: "contains_any" | "contains_all"; readonly values: ReadonlyArray<string> }

/** A compiled leaf: positive operators hold only of a present value; `negated` ones are exactly their negation. */
export interface CompiledLeaf { readonly field: Field; readonly arg: Arg; readonly negated: boolean }

export interface LeafFault { readonly at: "field" | "op" | "value"; readonly message: string }

const fault = (at: LeafFault["at"], message: string) => ({ fault: { at, message } })

const isStrings = (v: unknown): v is ReadonlyArray<string> => Array.isArray(v) && v.every((e) => typeof e === "string")
const isDays = (v: unknown): v is { days: number } =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Number.isInteger((v as { days?: unknown }).days) &&
  (v as { days: number }).days >= 0

/** A date (day number) or a date-time (ms) value of the field's type; a plain date on a date-time is its UTC midnight. */
const pointOf = (type: FieldType, v: unknown): number | undefined => {
  if (typeof v !== "string") return undefined
  if (type === "date") return dayOf(v)
  const d = dayOf(v)
  return d !== undefined ? d * DAY_MS : instantOf(v)
}

const pointHint = (type: FieldType) =>
  type === "date" ? "a date YYYY-MM-DD" : "an ISO 8601 date-time with an offset, or a date YYYY-MM-DD (its start in UTC)"

const tooLong = (values: ReadonlyArray<unknown>) =>
  values.length > MAX_LIST || values.some((v) => typeof v === "string" && [...v].length > MAX_STRING)

const listOf = (leaf: Leaf, field: Field, what: string) => {
  const v = leaf.value
  if (!isStrings(v) || v.length === 0) return fault("value", `must be a non-empty list of strings (${what})`)
  if (tooLong(v)) return fault("value", `must hold at most ${MAX_LIST} strings of at most ${MAX_STRING} characters`)
  const outside = field.options === undefined ? undefined : v.find((s) => !field.options!.includes(s))
  if (outside !== undefined) return fault("value", `"${outside}" is not an option of the field (${field.options!.join(", ")})`)
  return { values: v }
}

const compileArg = (leaf: Leaf, field: Field, now: Date): { arg: Arg } | { fault: LeafFault } => {
  const { type } = field
  const v = leaf.value
  switch (leaf.op) {
    case "exists":
      return v === undefined ? { arg: { kind: "exists" } } : fault("value", "must be absent for exists")
    case "eq": case "neq": {
      const ok = type === "string" ? typeof v === "string" : type === "number" ? typeof v === "number" && Number.isFinite(v)
        : typeof v === "boolean"
      if (!ok) return fault("value", `must be a ${type}`)
      if (typeof v === "string" && [...v].length > MAX_STRING) return fault("value", `must be at most ${MAX_STRING} characters`)
      if (typeof v === "string" && field.options !== undefined && !field.options.includes(v)) {
        return fault("value", `must be an option of the field (${field.options.join(", ")})`)
      }
      return { arg: { kind: "eq", value: v as string | number | boolean } }
    }
    case "in": case "not_in": {
      const l = listOf(leaf, field, "any of them matches")
      return "fault" in l ? l : { arg: { kind: "in", values: l.values } }
    }
    case "contains": case "starts_with":
      if (typeof v !== "string" || v.length === 0) return fault("value", "must be a non-empty string")
      if ([...v].length > MAX_STRING) return fault("value", `must be at most ${MAX_STRING} characters`)
      return { arg: { kind: leaf.op, value: v } }
    case "gt": case "gte": case "lt": case "lte": {
      if (typeof v !== "number" || !Number.isFinite(v)) return fault("value", "must be a number")
      const b = { at: v, rel: false, strict: leaf.op === "gt" || leaf.op === "lt" }
      return { arg: leaf.op.startsWith("g") ? { kind: "range", lo: b } : { kind: "range", hi: b } }
    }
    case "between": {
      const pair = Array.isArray(v) && v.length === 2 ? v : undefined
      const [a, b] = pair === undefined ? [undefined, undefined]
        : type === "number" ? pair.map((x) => (typeof x === "number" && Number.isFinite(x) ? x : undefined))
        : pair.map((x) => pointOf(type, x))
      if (a === undefined || b === undefined) {
        return fault("value", `must be two ${type === "number" ? "numbers" : `values, each ${pointHint(type)}`}, [from, to]`)
      }
      if (a > b) return fault("value", "must not end before it starts")
      return { arg: { kind: "range", lo: { at: a, rel: false, strict: false }, hi: { at: b, rel: false, strict: false } } }
    }
    case "before": case "after": {
      const p = pointOf(type, v)
      if (p === undefined) return fault("value", `must be ${pointHint(type)}`)
      const b = { at: p, rel: false, strict: true }
      return { arg: leaf.op === "before" ? { kind: "range", hi: b } : { kind: "range", lo: b } }
    }
    case "within_last": case "within_next": {
      if (!isDays(v)) return fault("value", "must be { \"days\": n }, n a whole number of days")
      // Dates: from today back (or on) n days, both ends included; date-times: the same span from the instant now.
      const n = leaf.op === "within_last" ? -v.days : v.days
      const [from, to] = n < 0 ? [n, 0] : [0, n]
      const bound = (d: number): Bound => type === "date"
        ? { at: d, rel: true, strict: false }
        : { at: now.getTime() + d * DAY_MS, rel: false, strict: false }
      return { arg: { kind: "range", lo: bound(from), hi: bound(to) } }
    }
    case "contains_any": case "contains_none": case "contains_all": {
      const l = listOf(leaf, field, leaf.op === "contains_all" ? "all must be present" : "any present matches")
      return "fault" in l ? l : { arg: { kind: leaf.op === "contains_all" ? "contains_all" : "contains_any", values: l.values } }
    }
    default:
      return fault("op", `is not an operator`)
  }
}

const NEGATED = new Set(["neq", "not_in", "contains_none"])

/** The compiled leaf, or its fault. `inStay`: whether the leaf is inside a `has_stay.where`. */
export const compileLeaf = (
  leaf: Leaf, customFields: ReadonlyArray<CustomFieldDef>, now: Date, inStay: boolean
): CompiledLeaf | { readonly fault: LeafFault } => {
  const field = fieldOf(leaf.field, customFields)
  if (field === undefined) {
    return fault("field", leaf.field.startsWith(CUSTOM_PREFIX)
      ? `is not a defined custom field${customFields.length === 0 ? " (none are defined)" : ` (defined: ${customFields.slice(0, 20).map((d) => CUSTOM_PREFIX + d.field_key).join(", ")})`}`
      : "is not a segment field")
  }
  if (field.scope === "stay" && !inStay) return fault("field", "is a stay field: use it inside has_stay.where")
  if (field.scope === "contact" && inStay) return fault("field", "is a contact field: use it outside has_stay.where")
  if (!OPERATORS[field.type].includes(leaf.op)) {
    return fault("op", `does not apply to a ${field.type} field (use one of: ${OPERATORS[field.type].join(", ")})`)
  }
  const r = compileArg(leaf, field, now)
  return "fault" in r ? r : { field, arg: r.arg, negated: NEGATED.has(leaf.op) }
}
