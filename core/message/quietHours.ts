// Quiet hours: a window of local wall-clock time (e.g. 21:00-09:00) in which a broadcast message is held, not sent,
// until the window ends (Braze's semantics; issue 25 item 6). Computed in the recipient's IANA zone, across midnight
// and daylight-saving changes, so the deliverer can be told one instant: `not_before`.

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

/** A window as a broadcast stores it: `{ from: "HH:MM", to: "HH:MM" }`, local time, `from` inclusive, `to` exclusive. */
export interface QuietHours {
  readonly from: string
  readonly to: string
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/

/** Minutes since local midnight of `HH:MM`, else undefined. */
export const minutesOf = (hhmm: string): number | undefined => {
  const m = HH_MM.exec(hhmm)
  return m === null ? undefined : Number(m[1]) * 60 + Number(m[2])
}

const formats = new Map<string, Intl.DateTimeFormat>()
const formatIn = (timeZone: string): Intl.DateTimeFormat => {
  let f = formats.get(timeZone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric",
      second: "numeric"
    })
    formats.set(timeZone, f)
  }
  return f
}

/** Whether `timeZone` is an IANA zone this runtime knows. */
export const isTimeZone = (timeZone: string): boolean => {
  try {
    formatIn(timeZone)
    return true
  } catch {
    return false
  }
}

/**
 * The wall-clock time at instant `t` in `timeZone`, as if it were UTC (ms): `wallOf(t) - t` is the zone's offset then.
 * Whole seconds (zones' offsets are); the instant's milliseconds are carried over.
 */
export const wallOf = (t: number, timeZone: string): number => {
  const parts: Record<string, number> = {}
  for (const p of formatIn(timeZone).formatToParts(new Date(t))) if (p.type !== "literal") parts[p.type] = Number(p.value)
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!)
  return wall + (((t % 1000) + 1000) % 1000)
}

const msOfDay = (wall: number): number => ((wall % DAY_MS) + DAY_MS) % DAY_MS

/** Whether a wall-clock time of day (ms since local midnight) falls inside the window `[from, to)` (minutes). */
const insideWindow = (ms: number, from: number, to: number): boolean => {
  const f = from * MINUTE_MS
  const e = to * MINUTE_MS
  return from < to ? ms >= f && ms < e : ms >= f || ms < e
}

/** Whether instant `t` is inside the quiet window in `timeZone` (a malformed or empty window holds nothing). */
export const isQuiet = (t: number, window: QuietHours, timeZone: string): boolean => {
  const from = minutesOf(window.from)
  const to = minutesOf(window.to)
  if (from === undefined || to === undefined || from === to) return false
  return insideWindow(msOfDay(wallOf(t, timeZone)), from, to)
}

/**
 * The first instant from `atLeast` on whose wall-clock time in `timeZone` is `wall`: the earlier of the two when a
 * clock set back repeats it (unless it has passed); inside a gap a clock set forward skips, the gap's end.
 */
export const instantAtWall = (wall: number, timeZone: string, atLeast = Number.NEGATIVE_INFINITY): number => {
  // The offsets in force around `wall`: a day either side covers any transition near it.
  const offsets = new Set([wallOf(wall - DAY_MS, timeZone) - (wall - DAY_MS), wallOf(wall + DAY_MS, timeZone) - (wall + DAY_MS)])
  const exact = [...offsets].map((o) => wall - o).filter((t) => t >= atLeast && wallOf(t, timeZone) === wall)
  if (exact.length > 0) return Math.min(...exact)
  // In a gap: between the candidates, wall time jumps past `wall` once; find the jump (bisection to the millisecond).
  const candidates = [...offsets].map((o) => wall - o)
  let lo = Math.min(...candidates) - DAY_MS / 24
  let hi = Math.max(...candidates) + DAY_MS / 24
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (wallOf(mid, timeZone) >= wall) hi = mid
    else lo = mid
  }
  return hi
}

/**
 * When a message may leave at `now` (ms) under quiet hours in `timeZone`: `now` itself outside the window, else the
 * window's end that day (or the next day, for a window across midnight entered in the evening). A malformed or empty
 * window (`from` = `to`) holds nothing.
 */
export const quietHoursEnd = (now: number, window: QuietHours, timeZone: string): number => {
  const from = minutesOf(window.from)
  const to = minutesOf(window.to)
  if (from === undefined || to === undefined || from === to) return now
  const wall = wallOf(now, timeZone)
  const ms = msOfDay(wall)
  if (!insideWindow(ms, from, to)) return now
  const midnight = wall - ms
  // Entered before midnight, a window across midnight ends on the next local day.
  const endDay = from > to && ms >= from * MINUTE_MS ? midnight + DAY_MS : midnight
  // A clock set back can repeat the window's end: the one still ahead of `now`.
  return Math.max(now, instantAtWall(endDay + to * MINUTE_MS, timeZone, now))
}
