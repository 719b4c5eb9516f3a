/**
 * ISO 8601 durations as journeys use them: weeks, days, hours, minutes and seconds (`PT1H`, `P2D`, `P1DT12H`), with
 * an optional sign for offsets (`-P2D`). Years and months are refused: their length depends on the calendar, and a
 * wait must be an exact span. A day is 24 hours; calendar days in a hotel's zone are the date trigger's business.
 */
const PATTERN = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/

export interface Duration {
  /** Signed length in milliseconds. */
  readonly ms: number
  /** Whole days of it (signed), for offsets counted in calendar days. */
  readonly days: number
  /** Whether it has an hour, minute or second part. */
  readonly hasTime: boolean
}

export const parseDuration = (text: string): Duration | undefined => {
  const m = PATTERN.exec(text)
  if (!m || text.endsWith("P") || text.endsWith("T")) return undefined
  const [, sign, w, d, h, min, s] = m
  if (w === undefined && d === undefined && h === undefined && min === undefined && s === undefined) return undefined
  const n = (x: string | undefined) => (x === undefined ? 0 : Number(x))
  const k = sign === "-" ? -1 : 1
  const days = n(w) * 7 + n(d)
  const ms = Math.round(((days * 24 + n(h)) * 60 + n(min)) * 60_000 + n(s) * 1_000)
  return { ms: k * ms, days: k * days, hasTime: h !== undefined || min !== undefined || s !== undefined }
}

export const SECOND = 1_000
export const DAY = 86_400_000
