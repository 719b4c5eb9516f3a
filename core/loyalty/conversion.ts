// Points ↔ money of the loyalty programme, shared by the member actor (discounts) and the ingress (/conversion).

/**
 * Points as money and back, in minor units (cents of a two-decimal currency): points → money is floored, money →
 * points ceiled, so a round trip never creates value. `pointValue` is money per point (e.g. 0.01).
 */
export const pointsToMinor = (points: number, pointValue: number): number => Math.floor(points * pointValue * 100 + 1e-9)
export const minorToPoints = (minor: number, pointValue: number): number => Math.ceil(minor / (pointValue * 100) - 1e-9)
