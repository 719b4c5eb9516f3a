import { Schema } from "effect"

/** A member's balances as every loyalty answer shows them (the member actor's results carry the same). */
export const Balances = Schema.Struct({
  /** Active points (spendable, including any held). */
  points_balance: Schema.Number,
  /** Active points less holds: what a redemption can take now. */
  points_available: Schema.Number,
  /** Earned but not yet confirmed: not spendable. */
  points_pending: Schema.Number,
  /** Reserved by active credit holds. */
  points_held: Schema.Number,
  lifetime_points: Schema.Number
})
export type Balances = typeof Balances.Type
