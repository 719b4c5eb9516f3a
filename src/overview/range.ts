import { Clock, Effect, Schema } from "effect"
import { DateString, isUuid } from "../../schemas/common.ts"
import { Unprocessable } from "../../schemas/errors.ts"
import { refused } from "../http/paging.ts"

// The days GET /api/v1/overview counts: UTC days (a tenant's hotels may sit in several time zones, and a day that
// differs per hotel could not be summed across them), `from` and `to` inclusive, 14 by default, at most 92.

export const DEFAULT_DAYS = 14
export const MAX_DAYS = 92
const DAY_MS = 86_400_000
const isDate = Schema.is(DateString)

export interface OverviewRange {
  readonly from: string
  readonly to: string
  /** The instants counted: from the start of `from` (inclusive) to the end of `to` (exclusive). */
  readonly start: string
  readonly end: string
  readonly hotel_id: string | undefined
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const startOf = (day: string) => Date.parse(`${day}T00:00:00Z`)
const NOT_A_DATE = "must be a real date formatted YYYY-MM-DD"

/** The range asked for, defaults filled from the clock: 400 for a malformed value, 422 for a range it cannot serve. */
export const overviewRange = Effect.fn("Overview.range")(function*(q: { readonly from?: string | undefined; readonly to?: string | undefined; readonly hotel_id?: string | undefined }) {
  if (q.from !== undefined && !isDate(q.from)) return yield* refused("from", NOT_A_DATE)
  if (q.to !== undefined && !isDate(q.to)) return yield* refused("to", NOT_A_DATE)
  if (q.hotel_id !== undefined && !isUuid(q.hotel_id)) return yield* refused("hotel_id", "must be a UUID")
  const today = dayOf(yield* Clock.currentTimeMillis)
  const to = q.to ?? (q.from === undefined ? today : dayOf(Math.min(startOf(q.from) + (DEFAULT_DAYS - 1) * DAY_MS, startOf(today))))
  const from = q.from ?? dayOf(startOf(to) - (DEFAULT_DAYS - 1) * DAY_MS)
  if (startOf(to) < startOf(from)) {
    return yield* Unprocessable.of("INVALID_RANGE", "to must not be before from", { to: ["must not be before from"] })
  }
  const days = (startOf(to) - startOf(from)) / DAY_MS + 1
  if (days > MAX_DAYS) {
    const message = `from and to must span at most ${MAX_DAYS} days (this one spans ${days})`
    return yield* Unprocessable.of("INVALID_RANGE", message, { from: [message], to: [message] })
  }
  return {
    from, to, start: new Date(startOf(from)).toISOString(), end: new Date(startOf(to) + DAY_MS).toISOString(), hotel_id: q.hotel_id?.toLowerCase()
  } satisfies OverviewRange
})
