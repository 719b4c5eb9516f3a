// The shapes of one member's pure ledger: lots, holds, entries and the wallet they make (transitions: state.ts, holds.ts).

export type LotStatus = "pending" | "active" | "expired" | "voided"

export interface Lot {
  readonly lot_id: string
  readonly status: LotStatus
  readonly points_original: number
  readonly points_remaining: number
  /** Reserved by active holds: counted in the balance, not spendable (≤ points_remaining). */
  readonly points_held: number
  /** ISO instant; null = never expires. */
  readonly expires_at: string | null
  /** A pending lot confirms by itself at this instant (the programme's pending_days); null or absent: only by a confirm. */
  readonly available_at?: string | null
  readonly created_at: string
  /** Creation order inside the member: the last tie-break of the draw order. */
  readonly seq: number
  /** Changed by this transition (the repository writes only these). */
  readonly dirty?: boolean
}

export type EntryKind =
  | "earn" | "redeem" | "expire" | "opening_balance" | "balance_set" | "confirm" | "void" | "discount"
  | "hold" | "hold_confirm" | "hold_release" | "hold_expire" | "credit_refund" | "reverse" | "transfer_out" | "transfer_in"

export interface Entry {
  readonly entry_id: string
  readonly seq: number
  readonly kind: EntryKind
  readonly status: "pending" | "confirmed" | "completed"
  /** Change to the active (spendable) balance: positive adds, negative takes. */
  readonly points: number
  /** Change to the pending balance (a pending earn adds, its confirm or void takes). */
  readonly pending_points: number
  /** Change to the held balance (a hold adds, its confirm, release or expiry takes). */
  readonly held_points: number
  readonly balance_after: number
  readonly pending_after: number
  readonly held_after: number
  /** The hold the entry moves (hold entries). */
  readonly hold_id?: string
  /** The earn a `reverse` entry undoes. */
  readonly reverses_entry_id?: string
  /** Lots the entry drew from (spends, expiries). */
  readonly draws: ReadonlyArray<{ readonly lot_id: string; readonly points: number }>
  readonly created_at: string
}

/** A credit hold: points reserved on specific lots until confirmed (spent), released or expired. */
export interface Hold {
  readonly hold_id: string
  readonly status: "active" | "confirmed" | "released" | "expired" | "reversed"
  readonly points: number
  readonly expires_at: string
  /** The lots it reserves. */
  readonly draws: ReadonlyArray<{ readonly lot_id: string; readonly points: number }>
  readonly dirty?: boolean
}

export interface Wallet {
  readonly balance_active: number
  readonly balance_pending: number
  /** Σ points of the active holds (part of balance_active). */
  readonly balance_held: number
  readonly lifetime_points: number
  /** Every lot that still holds points (active or pending); spent-out and expired ones may be dropped. */
  readonly lots: ReadonlyArray<Lot>
  /** Active holds (and those this transition moved). */
  readonly holds: ReadonlyArray<Hold>
  /** The member's next entry sequence number (entries and lots share it). */
  readonly next_seq: number
}

export const emptyWallet: Wallet = { balance_active: 0, balance_pending: 0, balance_held: 0, lifetime_points: 0, lots: [], holds: [], next_seq: 1 }

export interface Transition {
  readonly wallet: Wallet
  readonly entries: ReadonlyArray<Entry>
}
