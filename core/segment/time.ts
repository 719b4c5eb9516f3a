// Calendar arithmetic of the segment language, in whole days since 1970-01-01 (UTC), so both evaluators reason about
// dates as integers and never about a process's local zone.

export const DAY_MS = 86_400_000

// Years 1000 to 9999: what migration 033's segment_date accepts too (JavaScript maps years under 100 to 19xx).
const DATE = /^([1-9]\d{3})-(\d{2})-(\d{2})$/
const DATE_TIME = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** The day number of a real calendar date `YYYY-MM-DD`, else undefined (no 2026-02-30). */
export const dayOf = (s: string): number | undefined => {
  const m = DATE.exec(s)
  if (m === null) return undefined
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const t = Date.UTC(y, mo - 1, d)
  const back = new Date(t)
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? t / DAY_MS : undefined
}

/** The instant (ms) of an ISO 8601 date-time with an offset, else undefined. */
export const instantOf = (s: string): number | undefined => {
  if (!DATE_TIME.test(s) || dayOf(s.slice(0, 10)) === undefined) return undefined
  const t = Date.parse(s)
  return Number.isNaN(t) ? undefined : t
}

/** `YYYY-MM-DD` of a day number (the form SQL date parameters take). */
export const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** Today in UTC (contact-level dates). */
export const utcToday = (now: Date): number => Math.floor(now.getTime() / DAY_MS)

const formats = new Map<string, Intl.DateTimeFormat>()

/** Today in an IANA zone (a stay's hotel): the same local date PostgreSQL's `now AT TIME ZONE zone` gives. */
export const localToday = (now: Date, timeZone: string): number => {
  let f = formats.get(timeZone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    formats.set(timeZone, f)
  }
  return dayOf(f.format(now))!
}
