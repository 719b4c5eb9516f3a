import { draw, entryAt, resolvePending, type Transition, type Wallet } from "./state.ts"

// Pure reversal of an earning (a cancelled stay, a no-show, a correction): a pending earn is voided; a confirmed
// one takes its points back from its own lot first, then from the others oldest-expiring first, and stops at zero:
// what could not be taken back (already spent, or held) is reported as unrecovered, never made a negative balance.

export interface ReverseOutcome {
  readonly transition: Transition
  /** Pending points voided. */
  readonly voided: number
  /** Active points taken back. */
  readonly recovered: number
  /** Points the earning gave that are no longer there to take back. */
  readonly unrecovered: number
}

/**
 * Reverses the earn whose lot is `lot_id` and which gave `points` (lifetime counts it when `lifetime`). A pending
 * lot is voided; otherwise up to `points` are drawn. Lifetime points drop by the points earned (the earning is undone).
 */
export const reverseEarn = (
  w: Wallet,
  input: { readonly lot_id: string; readonly points: number; readonly pending: boolean; readonly lifetime: boolean; readonly entry_id: string },
  now: string
): ReverseOutcome => {
  if (input.pending) {
    const t = resolvePending(w, input.lot_id, "void", input.entry_id, now, "reverse")
    if (t === undefined) throw new Error(`lot ${input.lot_id} is not pending`)
    return { transition: t, voided: input.points, recovered: 0, unrecovered: 0 }
  }
  const { lots, draws, taken } = draw(w, input.points, now, input.lot_id)
  const wallet: Wallet = {
    ...w,
    balance_active: w.balance_active - taken,
    lifetime_points: Math.max(0, w.lifetime_points - (input.lifetime ? input.points : 0)),
    lots,
    next_seq: w.next_seq + 1
  }
  const entry = entryAt(wallet, { entry_id: input.entry_id, seq: w.next_seq, kind: "reverse", status: "completed", points: taken === 0 ? 0 : -taken, draws, created_at: now })
  return { transition: { wallet, entries: [entry] }, voided: 0, recovered: taken, unrecovered: input.points - taken }
}
