// Points ↔ money of the loyalty programme, shared by the member actor (discounts) and the ingress (/conversion).

/**
 * Points as money and back, in minor units (cents of a two-decimal currency): points → money is floored, money →
 * points ceiled, so a round trip never creates value. `pointValue` is money per point (e.g. 0.01).
 */
export const pointsToMinor = (points: number, pointValue: number): number => Math.floor(points * pointValue * 100 + 1e-9)
/**
 * Any money costs at least one point (the float tolerance never rounds a cent at a huge point_value to nothing), and
 * at most Number.MAX_SAFE_INTEGER: a point_value near zero (5e-324 is a finite number) makes any amount cost more
 * points than exist, never Infinity (which the ledger's integers cannot hold; it dead-lettered a discount). Less than
 * one minor unit is no money: 0 points, which the spending handlers refuse (AMOUNT_TOO_SMALL).
 */
export const minorToPoints = (minor: number, pointValue: number): number =>
  minor <= 0 ? 0 : Math.min(Math.max(1, Math.ceil(minor / (pointValue * 100) - 1e-9)), Number.MAX_SAFE_INTEGER)
