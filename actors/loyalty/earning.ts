
// Pure earning rules of the programme.

export { type ProgramRates, stayPoints } from "../../core/loyalty/stay.ts"

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
