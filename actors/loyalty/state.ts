// The pure ledger of one member: lots and the entries that move them. No clock, no I/O: every transition takes
// the command's time and returns the new wallet plus what to append, so a property test can drive it directly.

export type LotStatus = "pending" | "active" | "expired" | "voided"

export interface Lot {
  readonly lot_id: string
  readonly status: LotStatus
  readonly points_original: number
  readonly points_remaining: number
  /** ISO instant; null = never expires. */
  readonly expires_at: string | null
  readonly created_at: string
  /** Creation order inside the member: the last tie-break of the draw order. */
  readonly seq: number
  /** Changed by this transition (the repository writes only these). */
  readonly dirty?: boolean
}

export type EntryKind = "earn" | "redeem" | "expire" | "opening_balance" | "balance_set" | "confirm" | "void" | "discount"

export interface Entry {
  readonly entry_id: string
  readonly seq: number
  readonly kind: EntryKind
  readonly status: "pending" | "confirmed" | "completed"
  /** Change to the active (spendable) balance: positive adds, negative takes. */
  readonly points: number
  /** Change to the pending balance (a pending earn adds, its confirm or void takes). */
  readonly pending_points: number
  readonly balance_after: number
  readonly pending_after: number
  /** Lots the entry drew from (spends, expiries). */
  readonly draws: ReadonlyArray<{ readonly lot_id: string; readonly points: number }>
  readonly created_at: string
}

export interface Wallet {
  readonly balance_active: number
  readonly balance_pending: number
  readonly lifetime_points: number
  /** Every lot that still holds points (active or pending); spent-out and expired ones may be dropped. */
  readonly lots: ReadonlyArray<Lot>
  /** The member's next entry sequence number (entries and lots share it). */
  readonly next_seq: number
}

export const emptyWallet: Wallet = { balance_active: 0, balance_pending: 0, lifetime_points: 0, lots: [], next_seq: 1 }

export interface Transition {
  readonly wallet: Wallet
  readonly entries: ReadonlyArray<Entry>
}

const isLive = (lot: Lot, now: string) => lot.expires_at === null || lot.expires_at > now

/** Spendable lots in draw order: oldest-expiring first (never-expiring last), then oldest, then creation order. */
export const drawOrder = (lots: ReadonlyArray<Lot>, now: string): ReadonlyArray<Lot> =>
  lots.filter((l) => l.status === "active" && l.points_remaining > 0 && isLive(l, now)).sort((a, b) =>
    a.expires_at === b.expires_at ? (a.created_at === b.created_at ? a.seq - b.seq : a.created_at < b.created_at ? -1 : 1)
    : a.expires_at === null ? 1
    : b.expires_at === null ? -1
    : a.expires_at < b.expires_at ? -1 : 1)

const replaceLots = (lots: ReadonlyArray<Lot>, changed: ReadonlyMap<string, Lot>) => lots.map((l) => changed.get(l.lot_id) ?? l)

/** Points that can be spent at `now` (lots past their expiry are not, even before `expire` has run). */
export const spendable = (w: Wallet, now: string) => drawOrder(w.lots, now).reduce((s, l) => s + l.points_remaining, 0)

export interface EarnInput {
  readonly lot_id: string
  readonly entry_id: string
  readonly points: number
  readonly status: "pending" | "confirmed"
  readonly kind: "earn" | "opening_balance" | "balance_set"
  readonly expires_at: string | null
  /** Counts towards lifetime_points (stay and action earnings do; an opening balance does not). */
  readonly lifetime: boolean
}

/** Adds a lot: active and spendable when confirmed, else pending (not spendable, not yet lifetime). */
export const earn = (w: Wallet, input: EarnInput, now: string): Transition => {
  if (!Number.isSafeInteger(input.points) || input.points <= 0) throw new RangeError(`earn of ${input.points} points`)
  const pending = input.status === "pending"
  const lot: Lot = {
    lot_id: input.lot_id, status: pending ? "pending" : "active", points_original: input.points, points_remaining: input.points,
    expires_at: input.expires_at, created_at: now, seq: w.next_seq, dirty: true
  }
  const wallet: Wallet = {
    balance_active: w.balance_active + (pending ? 0 : input.points),
    balance_pending: w.balance_pending + (pending ? input.points : 0),
    lifetime_points: w.lifetime_points + (!pending && input.lifetime ? input.points : 0),
    lots: [...w.lots, lot],
    next_seq: w.next_seq + 1
  }
  const entry: Entry = {
    entry_id: input.entry_id, seq: w.next_seq, kind: input.kind, status: pending ? "pending" : "confirmed",
    points: pending ? 0 : input.points, pending_points: pending ? input.points : 0, balance_after: wallet.balance_active, pending_after: wallet.balance_pending, draws: [{ lot_id: lot.lot_id, points: input.points }], created_at: now
  }
  return { wallet, entries: [entry] }
}

export type SpendResult =
  | { readonly ok: true; readonly transition: Transition }
  | { readonly ok: false; readonly requested: number; readonly available: number }

/** Takes points from the spendable lots, oldest-expiring first; refused whole when they do not cover it. */
export const spend = (w: Wallet, input: { readonly entry_id: string; readonly points: number; readonly kind: "redeem" | "balance_set" | "discount" }, now: string): SpendResult => {
  if (!Number.isSafeInteger(input.points) || input.points <= 0) throw new RangeError(`spend of ${input.points} points`)
  const available = spendable(w, now)
  if (input.points > available) return { ok: false, requested: input.points, available }
  let left = input.points
  const changed = new Map<string, Lot>()
  const draws: Array<{ lot_id: string; points: number }> = []
  for (const lot of drawOrder(w.lots, now)) {
    if (left === 0) break
    const take = Math.min(left, lot.points_remaining)
    left -= take
    changed.set(lot.lot_id, { ...lot, points_remaining: lot.points_remaining - take, dirty: true })
    draws.push({ lot_id: lot.lot_id, points: take })
  }
  const wallet: Wallet = { ...w, balance_active: w.balance_active - input.points, lots: replaceLots(w.lots, changed), next_seq: w.next_seq + 1 }
  const entry: Entry = {
    entry_id: input.entry_id, seq: w.next_seq, kind: input.kind, status: "completed", points: -input.points, pending_points: 0,
    balance_after: wallet.balance_active, pending_after: wallet.balance_pending, draws, created_at: now
  }
  return { ok: true, transition: { wallet, entries: [entry] } }
}

/**
 * Expires every active lot whose expiry is at or before `now`: one `expire` entry per lot, with what it still held.
 * Run before every command, so a lot is never spent past its expiry and no sweep is needed for correctness.
 */
export const expire = (w: Wallet, now: string, newId: () => string): Transition => {
  let wallet = w
  const entries: Array<Entry> = []
  const due = w.lots.filter((l) => l.status === "active" && !isLive(l, now)).sort((a, b) => a.seq - b.seq)
  for (const lot of due) {
    const gone = lot.points_remaining
    const changed = new Map([[lot.lot_id, { ...lot, status: "expired" as const, points_remaining: 0, dirty: true }]])
    wallet = { ...wallet, balance_active: wallet.balance_active - gone, lots: replaceLots(wallet.lots, changed), next_seq: wallet.next_seq + 1 }
    if (gone > 0) {
      entries.push({
        entry_id: newId(), seq: wallet.next_seq - 1, kind: "expire", status: "completed", points: -gone, pending_points: 0, balance_after: wallet.balance_active,
        pending_after: wallet.balance_pending, draws: [{ lot_id: lot.lot_id, points: gone }], created_at: now
      })
    } else {
      wallet = { ...wallet, next_seq: wallet.next_seq - 1 }
    }
  }
  return { wallet, entries }
}

/**
 * Resolves a pending lot, once: `confirm` makes its points spendable and counts them in lifetime points (keeping the
 * expiry set when they were earned); `void` drops them. Undefined when the lot is not pending in this wallet.
 */
export const resolvePending = (w: Wallet, lotId: string, move: "confirm" | "void", entryId: string, now: string): Transition | undefined => {
  const lot = w.lots.find((l) => l.lot_id === lotId && l.status === "pending")
  if (lot === undefined) return undefined
  const n = lot.points_remaining
  const confirmed = move === "confirm"
  const changed = new Map([[lot.lot_id, { ...lot, status: confirmed ? "active" as const : "voided" as const, points_remaining: confirmed ? n : 0, dirty: true }]])
  const wallet: Wallet = {
    balance_active: w.balance_active + (confirmed ? n : 0),
    balance_pending: w.balance_pending - n,
    lifetime_points: w.lifetime_points + (confirmed ? n : 0),
    lots: replaceLots(w.lots, changed),
    next_seq: w.next_seq + 1
  }
  const entry: Entry = {
    entry_id: entryId, seq: w.next_seq, kind: move, status: "completed", points: confirmed ? n : 0, pending_points: -n,
    balance_after: wallet.balance_active, pending_after: wallet.balance_pending, draws: [{ lot_id: lot.lot_id, points: n }], created_at: now
  }
  return { wallet, entries: [entry] }
}

/** Sets the active balance to `target` (a re-enrolment that names loyalty_balance): one adjustment, or none. */
export const setBalance = (w: Wallet, target: number, ids: { readonly lot_id: string; readonly entry_id: string }, expiresAt: string | null, now: string): Transition => {
  const current = spendable(w, now)
  if (target === current) return { wallet: w, entries: [] }
  if (target > current) {
    return earn(w, { ...ids, points: target - current, status: "confirmed", kind: "balance_set", expires_at: expiresAt, lifetime: false }, now)
  }
  const taken = spend(w, { entry_id: ids.entry_id, points: current - target, kind: "balance_set" }, now)
  if (!taken.ok) throw new Error("unreachable: a balance_set takes at most what is spendable")
  return taken.transition
}

/** Applies transitions one after another, keeping every entry. */
export const chain = (w: Wallet, steps: ReadonlyArray<(w: Wallet) => Transition>): Transition =>
  steps.reduce<Transition>((acc, step) => {
    const next = step(acc.wallet)
    return { wallet: next.wallet, entries: [...acc.entries, ...next.entries] }
  }, { wallet: w, entries: [] })
