// The pure ledger of one member: lots and the entries that move them. No clock, no I/O: every transition takes
// the command's time and returns the new wallet plus what to append, so a property test can drive it directly.

export * from "./wallet.ts"
import type { Entry, Lot, Transition, Wallet } from "./wallet.ts"

export const isLive = (lot: Lot, now: string) => lot.expires_at === null || lot.expires_at > now
/** What a lot can still give: its remaining points less those held. */
export const free = (lot: Lot) => lot.points_remaining - lot.points_held

/** Spendable lots in draw order: oldest-expiring first (never-expiring last), then oldest, then creation order. */
export const drawOrder = (lots: ReadonlyArray<Lot>, now: string): ReadonlyArray<Lot> =>
  lots.filter((l) => l.status === "active" && free(l) > 0 && isLive(l, now)).sort((a, b) =>
    a.expires_at === b.expires_at ? (a.created_at === b.created_at ? a.seq - b.seq : a.created_at < b.created_at ? -1 : 1)
    : a.expires_at === null ? 1
    : b.expires_at === null ? -1
    : a.expires_at < b.expires_at ? -1 : 1)

export const replaceLots = (lots: ReadonlyArray<Lot>, changed: ReadonlyMap<string, Lot>) => lots.map((l) => changed.get(l.lot_id) ?? l)

/** Points that can be spent at `now` (lots past their expiry are not, even before `expire` has run). */
export const spendable = (w: Wallet, now: string) => drawOrder(w.lots, now).reduce((s, l) => s + free(l), 0)

/** An entry at the wallet it leaves behind: its balances after are the wallet's. */
export const entryAt = (
  w: Wallet, e: Omit<Entry, "balance_after" | "pending_after" | "held_after" | "pending_points" | "held_points"> & { pending_points?: number; held_points?: number }
): Entry => ({
  pending_points: 0, held_points: 0, ...e, balance_after: w.balance_active, pending_after: w.balance_pending, held_after: w.balance_held
})

export interface EarnInput {
  readonly lot_id: string
  readonly entry_id: string
  readonly points: number
  readonly status: "pending" | "confirmed"
  readonly kind: "earn" | "opening_balance" | "balance_set" | "transfer_in"
  readonly expires_at: string | null
  /** For a pending earn: when it confirms by itself (absent: only by an explicit confirm). */
  readonly available_at?: string | null
  /** Counts towards lifetime_points (stay and action earnings do; an opening balance does not). */
  readonly lifetime: boolean
}

/** Adds a lot: active and spendable when confirmed, else pending (not spendable, not yet lifetime). */
export const earn = (w: Wallet, input: EarnInput, now: string): Transition => {
  if (!Number.isSafeInteger(input.points) || input.points <= 0) throw new RangeError(`earn of ${input.points} points`)
  const pending = input.status === "pending"
  const lot: Lot = {
    lot_id: input.lot_id, status: pending ? "pending" : "active", points_original: input.points, points_remaining: input.points, points_held: 0,
    expires_at: input.expires_at, available_at: pending ? input.available_at ?? null : null, created_at: now, seq: w.next_seq, dirty: true
  }
  const wallet: Wallet = {
    ...w,
    balance_active: w.balance_active + (pending ? 0 : input.points),
    balance_pending: w.balance_pending + (pending ? input.points : 0),
    lifetime_points: w.lifetime_points + (!pending && input.lifetime ? input.points : 0),
    lots: [...w.lots, lot],
    next_seq: w.next_seq + 1
  }
  const entry = entryAt(wallet, {
    entry_id: input.entry_id, seq: w.next_seq, kind: input.kind, status: pending ? "pending" : "confirmed",
    points: pending ? 0 : input.points, pending_points: pending ? input.points : 0, draws: [{ lot_id: lot.lot_id, points: input.points }], created_at: now
  })
  return { wallet, entries: [entry] }
}

/** Takes up to `points` free points from the spendable lots, oldest-expiring first (the lot `first`, if given, before all). */
export const draw = (w: Wallet, points: number, now: string, first?: string) => {
  let left = points
  const changed = new Map<string, Lot>()
  const draws: Array<{ lot_id: string; points: number }> = []
  const order = drawOrder(w.lots, now)
  const lots = first === undefined ? order : [...order.filter((l) => l.lot_id === first), ...order.filter((l) => l.lot_id !== first)]
  for (const lot of lots) {
    if (left === 0) break
    const take = Math.min(left, free(lot))
    left -= take
    changed.set(lot.lot_id, { ...lot, points_remaining: lot.points_remaining - take, dirty: true })
    draws.push({ lot_id: lot.lot_id, points: take })
  }
  return { lots: replaceLots(w.lots, changed), draws, taken: points - left }
}

export type SpendResult =
  | { readonly ok: true; readonly transition: Transition }
  | { readonly ok: false; readonly requested: number; readonly available: number }

/** Takes points from the spendable lots, oldest-expiring first; refused whole when they do not cover it. */
export const spend = (w: Wallet, input: { readonly entry_id: string; readonly points: number; readonly kind: "redeem" | "balance_set" | "discount" }, now: string): SpendResult => {
  if (!Number.isSafeInteger(input.points) || input.points <= 0) throw new RangeError(`spend of ${input.points} points`)
  const available = spendable(w, now)
  if (input.points > available) return { ok: false, requested: input.points, available }
  const { lots, draws } = draw(w, input.points, now)
  const wallet: Wallet = { ...w, balance_active: w.balance_active - input.points, lots, next_seq: w.next_seq + 1 }
  const entry = entryAt(wallet, { entry_id: input.entry_id, seq: w.next_seq, kind: input.kind, status: "completed", points: -input.points, draws, created_at: now })
  return { ok: true, transition: { wallet, entries: [entry] } }
}

/**
 * Expires every active lot whose expiry is at or before `now`: one `expire` entry per lot, with what it still held.
 * Run before every command (after due holds expired: a hold only reserves lots that outlive it), so a lot is never
 * spent past its expiry and no sweep is needed for correctness.
 */
export const expire = (w: Wallet, now: string, newId: () => string): Transition => {
  let wallet = w
  const entries: Array<Entry> = []
  const due = w.lots.filter((l) => l.status === "active" && !isLive(l, now)).sort((a, b) => a.seq - b.seq)
  for (const lot of due) {
    if (lot.points_held > 0) throw new Error(`lot ${lot.lot_id} expires while ${lot.points_held} points of it are held`)
    const gone = lot.points_remaining
    const changed = new Map([[lot.lot_id, { ...lot, status: "expired" as const, points_remaining: 0, dirty: true }]])
    wallet = { ...wallet, balance_active: wallet.balance_active - gone, lots: replaceLots(wallet.lots, changed) }
    if (gone > 0) {
      wallet = { ...wallet, next_seq: wallet.next_seq + 1 }
      entries.push(entryAt(wallet, {
        entry_id: newId(), seq: wallet.next_seq - 1, kind: "expire", status: "completed", points: -gone, draws: [{ lot_id: lot.lot_id, points: gone }], created_at: now
      }))
    }
  }
  return { wallet, entries }
}

/**
 * Resolves a pending lot, once: `confirm` makes its points spendable and counts them in lifetime points (keeping the
 * expiry set when they were earned); `void` drops them. Undefined when the lot is not pending in this wallet.
 */
export const resolvePending = (
  w: Wallet, lotId: string, move: "confirm" | "void", entryId: string, now: string, kind: "confirm" | "void" | "reverse" = move, confirmPoints?: number
): Transition | undefined => {
  const lot = w.lots.find((l) => l.lot_id === lotId && l.status === "pending")
  if (lot === undefined) return undefined
  const n = lot.points_remaining
  const confirmed = move === "confirm"
  // A partial confirm posts `kept` and voids the rest: the lot becomes an earning of `kept` points (TigerBeetle's post
  // of less than pending), so a later reversal takes back what was confirmed, no more.
  const kept = confirmed ? Math.min(n, confirmPoints ?? n) : 0
  if (kept < 0 || !Number.isInteger(kept) || (confirmed && kept === 0)) throw new RangeError("a confirm posts at least one point")
  const changed = new Map([[lot.lot_id, {
    ...lot, status: confirmed ? "active" as const : "voided" as const, points_remaining: kept, ...(kept < n && confirmed ? { points_original: kept } : {}), dirty: true
  }]])
  const wallet: Wallet = {
    ...w,
    balance_active: w.balance_active + kept,
    balance_pending: w.balance_pending - n,
    lifetime_points: w.lifetime_points + kept,
    lots: replaceLots(w.lots, changed),
    next_seq: w.next_seq + 1
  }
  const entry = entryAt(wallet, {
    entry_id: entryId, seq: w.next_seq, kind, status: "completed", points: kept, pending_points: -n, draws: [{ lot_id: lot.lot_id, points: n }], created_at: now
  })
  return { wallet, entries: [entry] }
}

/** Sets the active balance to `target` (a re-enrolment that names loyalty_balance): one adjustment, or none. */
export const setBalance = (w: Wallet, target: number, ids: { readonly lot_id: string; readonly entry_id: string }, expiresAt: string | null, now: string): Transition => {
  const current = spendable(w, now) + w.balance_held
  if (target === current) return { wallet: w, entries: [] }
  if (target > current) {
    return earn(w, { ...ids, points: target - current, status: "confirmed", kind: "balance_set", expires_at: expiresAt, lifetime: false }, now)
  }
  // Held points stay held: the balance goes as low as the holds allow.
  const take = Math.min(current - target, spendable(w, now))
  if (take === 0) return { wallet: w, entries: [] }
  const taken = spend(w, { entry_id: ids.entry_id, points: take, kind: "balance_set" }, now)
  if (!taken.ok) throw new Error("unreachable: a balance_set takes at most what is spendable")
  return taken.transition
}

/** Applies transitions one after another, keeping every entry. */
export const chain = (w: Wallet, steps: ReadonlyArray<(w: Wallet) => Transition>): Transition =>
  steps.reduce<Transition>((acc, step) => {
    const next = step(acc.wallet)
    return { wallet: next.wallet, entries: [...acc.entries, ...next.entries] }
  }, { wallet: w, entries: [] })
