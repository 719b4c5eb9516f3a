import { Effect, Schema } from "effect"
import { DateString, DateTimeWithOffset } from "../../schemas/common.ts"
import { refused } from "./paging.ts"

// The `from` / `to` window of the tenant-wide logs (messages, webhook deliveries): each a date-time with its offset or
// a plain date, read as a UTC day. `from` is inclusive; `to` is exclusive as a date-time and inclusive as a date (the
// whole of that day), so `from=2026-11-01&to=2026-11-01` is that one day.

const isDateTime = Schema.is(DateTimeWithOffset)
const isDate = Schema.is(DateString)
const DAY_MS = 86_400_000

const MUST = "must be a date (YYYY-MM-DD, a UTC day) or an ISO 8601 date-time with a timezone offset (encode + as %2B)"

/** The instant a bound names: a date-time as given, a date at the start of its UTC day (`end`: of the next day). */
const instantOf = (value: string, end: boolean): number | undefined => {
  if (isDateTime(value)) return Date.parse(value)
  if (isDate(value)) return Date.parse(`${value}T00:00:00Z`) + (end ? DAY_MS : 0)
  return undefined
}

/** The window as ISO instants, `from` inclusive and `to` exclusive, or 400 naming the bound at fault. */
export const timeWindow = Effect.fn("TimeWindow.parse")(function*(q: { readonly from?: string | undefined; readonly to?: string | undefined }) {
  const from = q.from === undefined ? undefined : instantOf(q.from, false)
  if (q.from !== undefined && from === undefined) return yield* refused("from", MUST)
  const to = q.to === undefined ? undefined : instantOf(q.to, true)
  if (q.to !== undefined && to === undefined) return yield* refused("to", MUST)
  if (from !== undefined && to !== undefined && to <= from) return yield* refused("to", "must be after from")
  return {
    from: from === undefined ? undefined : new Date(from).toISOString(),
    to: to === undefined ? undefined : new Date(to).toISOString()
  }
})
