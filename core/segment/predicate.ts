import type postgres from "postgres"
import type { Fragment, FieldType, Value } from "./catalog.ts"
import type { Arg, Bound, CompiledLeaf } from "./leaf.ts"
import { isoDay } from "./time.ts"

// What a compiled leaf means, twice: over a TypeScript value and over a SQL expression. Side by side so a change to one
// is seen beside the other (the differential test holds them together).
//
// Missing values: a positive operator never holds of a missing value (SQL: every leaf is `coalesce(…, false)`, so no
// NULL reaches all/any/not and `not` is plain negation); `neq`, `not_in` and `contains_none` are the negations of
// `eq`, `in` and `contains_any`, so they hold of a missing value. `contains` and `starts_with` compare lower-cased text
// as plain text (no pattern characters); `exists` of a list means a non-empty list.

const inRange = (v: number, b: Bound | undefined, today: number, side: "lo" | "hi"): boolean => {
  if (b === undefined) return true
  const at = b.rel ? today + b.at : b.at
  return side === "lo" ? (b.strict ? v > at : v >= at) : (b.strict ? v < at : v <= at)
}

const positive = (v: Exclude<Value, null>, arg: Arg, today: number): boolean => {
  switch (arg.kind) {
    case "exists": return !Array.isArray(v) || v.length > 0
    case "eq": return v === arg.value
    case "in": return typeof v === "string" && arg.values.includes(v)
    case "contains": return typeof v === "string" && v.toLowerCase().includes(arg.value.toLowerCase())
    case "starts_with": return typeof v === "string" && v.toLowerCase().startsWith(arg.value.toLowerCase())
    case "range": return typeof v === "number" && inRange(v, arg.lo, today, "lo") && inRange(v, arg.hi, today, "hi")
    case "contains_any": return Array.isArray(v) && arg.values.some((x) => v.includes(x))
    case "contains_all": return Array.isArray(v) && arg.values.every((x) => v.includes(x))
  }
}

/** The leaf over a value; `today` is the day number relative dates count from. */
export const holds = (leaf: CompiledLeaf, v: Value, today: number): boolean => {
  const p = v !== null && positive(v, leaf.arg, today)
  return leaf.negated ? !p : p
}

const boundSql = (q: postgres.Sql, type: FieldType, b: Bound, today: Fragment): Fragment => {
  switch (type) {
    case "date": return b.rel ? q`(${today} + ${b.at}::int)` : q`${isoDay(b.at)}::date`
    case "datetime": return q`${new Date(b.at).toISOString()}::timestamptz`
    default: return q`${b.at}::numeric`
  }
}

const positiveSql = (q: postgres.Sql, leaf: CompiledLeaf, expr: Fragment, today: Fragment): Fragment => {
  const { arg, field } = leaf
  switch (arg.kind) {
    case "exists": return field.type === "tags" ? q`cardinality(${expr}) > 0` : q`${expr} IS NOT NULL`
    case "eq":
      return typeof arg.value === "string" ? q`${expr} = ${arg.value}::text`
        : typeof arg.value === "number" ? q`${expr} = ${arg.value}::numeric`
        : q`${expr} = ${arg.value}::boolean`
    case "in": return q`${expr} = ANY(${arg.values as Array<string>}::text[])`
    case "contains": return q`strpos(lower(${expr}), lower(${arg.value}::text)) > 0`
    case "starts_with": return q`starts_with(lower(${expr}), lower(${arg.value}::text))`
    case "range": {
      const lo = arg.lo === undefined ? q`true`
        : q`${expr} ${arg.lo.strict ? q`>` : q`>=`} ${boundSql(q, field.type, arg.lo, today)}`
      const hi = arg.hi === undefined ? q`true`
        : q`${expr} ${arg.hi.strict ? q`<` : q`<=`} ${boundSql(q, field.type, arg.hi, today)}`
      return q`${lo} AND ${hi}`
    }
    case "contains_any": return q`${expr} && ${arg.values as Array<string>}::text[]`
    case "contains_all": return q`${expr} @> ${arg.values as Array<string>}::text[]`
  }
}

/** The leaf as a SQL condition that is never NULL; `today` is the date expression relative dates count from. */
export const holdsSql = (q: postgres.Sql, leaf: CompiledLeaf, today: Fragment): Fragment => {
  const p = q`coalesce((${positiveSql(q, leaf, leaf.field.sql(q), today)}), false)`
  return leaf.negated ? q`NOT ${p}` : p
}

