// Points a stay earns under the programme's rates, shared by the member actor (/points) and the ingress (/calculate).

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
export const stayPoints = <S extends { readonly amount: number; readonly nights: number }>(p: ProgramRates, multiplier: number, stay: S): number =>
  Math.floor(Math.floor(stay.amount * p.points_per_unit) * multiplier) + stay.nights * p.points_per_night

/** The parts of stayPoints, as /calculate shows them. */
export const stayBreakdown = (p: ProgramRates, multiplier: number, stay: { readonly amount: number; readonly nights: number }) => {
  const base = Math.floor(stay.amount * p.points_per_unit)
  const amount = Math.floor(base * multiplier)
  return [
    { rule: "amount", points: base },
    { rule: "tier_multiplier", points: amount - base },
    { rule: "nights", points: stay.nights * p.points_per_night }
  ]
}
