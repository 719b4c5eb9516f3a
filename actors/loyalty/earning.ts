import type { Stay } from "./protocol.ts"

// Pure earning rules of the programme.

export interface ProgramRates {
  readonly currency: string
  readonly points_per_unit: number
  readonly points_per_night: number
  readonly expiry_months: number | null
}

/**
 * Points for a stay: floor(amount × points_per_unit), times the tier's multiplier (floored), plus nights ×
 * points_per_night. Flooring means a guest never gets more than the rate.
 */
export const stayPoints = (p: ProgramRates, multiplier: number, stay: Stay): number =>
  Math.floor(Math.floor(stay.amount * p.points_per_unit) * multiplier) + stay.nights * p.points_per_night

/** When a lot earned at `now` expires: `expiry_months` calendar months later (clamped to the month's end), or never. */
export const expiryOf = (expiryMonths: number | null | undefined, now: string): string | null => {
  if (expiryMonths == null) return null
  const d = new Date(now)
  const day = d.getUTCDate()
  d.setUTCDate(1)
  d.setUTCMonth(d.getUTCMonth() + expiryMonths)
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()
  d.setUTCDate(Math.min(day, last))
  return d.toISOString()
}

/** The semantic fields of a request, as one canonical string: the same key with other fields is a conflict. */
export const fingerprint = (fields: Record<string, unknown>): string =>
  JSON.stringify(Object.keys(fields).sort().map((k) => [k, fields[k] ?? null]))
