import { minorToPoints, pointsToMinor } from "../../core/loyalty/conversion.ts"

// GET /conversion: points to money (floored) or money to points (ceiled) at the programme's point_value.

export type ConversionQuery =
  | { readonly ok: true; readonly points?: number; readonly amount?: number }
  | { readonly ok: false; readonly details: Record<string, Array<string>> }

/** Exactly one of points (a whole number) or amount (a number), both 0 or more. */
export const conversionQuery = (q: { readonly points?: string; readonly amount?: string }): ConversionQuery => {
  if ((q.points === undefined) === (q.amount === undefined)) return { ok: false, details: { points: ["send either points or amount"] } }
  if (q.points !== undefined) {
    const points = Number(q.points)
    return Number.isSafeInteger(points) && points >= 0 ? { ok: true, points } : { ok: false, details: { points: ["must be a whole number, 0 or more"] } }
  }
  const amount = Number(q.amount)
  return Number.isFinite(amount) && amount >= 0 ? { ok: true, amount } : { ok: false, details: { amount: ["must be a number, 0 or more"] } }
}

export const convert = (q: { readonly points?: number; readonly amount?: number }, program: { readonly currency: string; readonly point_value: number }) => {
  const value = program.point_value
  const minor = q.points !== undefined ? pointsToMinor(q.points, value) : Math.round(q.amount! * 100)
  return {
    points: q.points ?? minorToPoints(minor, value), amount: minor / 100, currency: program.currency, rate: { point_value: value },
    rounding: q.points !== undefined ? "points to money floored" : "money to points ceiled"
  }
}
