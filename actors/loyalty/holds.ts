import { drawOrder, entryAt, expire, free, type Hold, isLive, type Lot, replaceLots, resolvePending, type Transition, type Wallet } from "./state.ts"

// Pure credit-hold transitions of one member's wallet. A hold reserves points on specific lots (lot.points_held):
// they stay in the active balance but cannot be spent, until the hold is confirmed (spent), released or expired.

type Draws = ReadonlyArray<{ readonly lot_id: string; readonly points: number }>

const withHold = (holds: ReadonlyArray<Hold>, hold: Hold) =>
  holds.some((h) => h.hold_id === hold.hold_id) ? holds.map((h) => (h.hold_id === hold.hold_id ? hold : h)) : [...holds, hold]

/** Adds `delta` (±) to the held points of the lots drawn, and `spent` less to their remaining points. */
const moveLots = (lots: ReadonlyArray<Lot>, draws: Draws, held: 1 | -1, spent: boolean) =>
  replaceLots(lots, new Map(draws.map((d) => {
    const lot = lots.find((l) => l.lot_id === d.lot_id)!
    return [d.lot_id, { ...lot, points_held: lot.points_held + held * d.points, points_remaining: lot.points_remaining - (spent ? d.points : 0), dirty: true }]
  })))

/** Points a hold expiring at `expiresAt` can take: free points of lots that outlive it (so it expires before its lots). */
export const holdable = (w: Wallet, now: string, expiresAt: string) =>
  drawOrder(w.lots, now).filter((l) => isLive(l, expiresAt)).reduce((s, l) => s + free(l), 0)

export type HoldResult =
  | { readonly ok: true; readonly transition: Transition; readonly hold: Hold }
  | { readonly ok: false; readonly requested: number; readonly available: number }

/** Reserves `points` on the lots, oldest-expiring first among those that outlive the hold; refused whole otherwise. */
export const placeHold = (w: Wallet, input: { readonly hold_id: string; readonly entry_id: string; readonly points: number; readonly expires_at: string }, now: string): HoldResult => {
  if (!Number.isSafeInteger(input.points) || input.points <= 0) throw new RangeError(`hold of ${input.points} points`)
  if (input.expires_at <= now) throw new RangeError("a hold must expire after it is placed")
  const available = holdable(w, now, input.expires_at)
  if (input.points > available) return { ok: false, requested: input.points, available }
  let left = input.points
  const draws: Array<{ lot_id: string; points: number }> = []
  for (const lot of drawOrder(w.lots, now).filter((l) => isLive(l, input.expires_at))) {
    if (left === 0) break
    const take = Math.min(left, free(lot))
    left -= take
    draws.push({ lot_id: lot.lot_id, points: take })
  }
  const hold: Hold = { hold_id: input.hold_id, status: "active", points: input.points, expires_at: input.expires_at, draws, dirty: true }
  const wallet: Wallet = {
    ...w, balance_held: w.balance_held + input.points, lots: moveLots(w.lots, draws, 1, false), holds: withHold(w.holds, hold), next_seq: w.next_seq + 1
  }
  const entry = entryAt(wallet, { entry_id: input.entry_id, seq: w.next_seq, kind: "hold", status: "completed", points: 0, held_points: input.points, draws, created_at: now, hold_id: hold.hold_id })
  return { ok: true, transition: { wallet, entries: [entry] }, hold }
}

/**
 * Ends an active hold: `confirm` spends its held points (from the lots it reserved), `release` and `expire` free them.
 * Undefined when the hold is not active in this wallet (each hold moves out of active at most once).
 */
export const endHold = (w: Wallet, holdId: string, move: "confirm" | "release" | "expire", entryId: string, now: string): Transition | undefined => {
  const hold = w.holds.find((h) => h.hold_id === holdId && h.status === "active")
  if (hold === undefined) return undefined
  const spent = move === "confirm"
  const ended: Hold = { ...hold, status: spent ? "confirmed" : move === "release" ? "released" : "expired", dirty: true }
  const wallet: Wallet = {
    ...w,
    balance_active: w.balance_active - (spent ? hold.points : 0),
    balance_held: w.balance_held - hold.points,
    lots: moveLots(w.lots, hold.draws, -1, spent),
    holds: withHold(w.holds, ended),
    next_seq: w.next_seq + 1
  }
  const kind = spent ? "hold_confirm" as const : move === "release" ? "hold_release" as const : "hold_expire" as const
  const entry = entryAt(wallet, {
    entry_id: entryId, seq: w.next_seq, kind, status: "completed", points: spent ? -hold.points : 0, held_points: -hold.points, draws: hold.draws, created_at: now, hold_id: hold.hold_id
  })
  return { wallet, entries: [entry] }
}

/** Expires every active hold at or past its expiry: run before every command, so no sweep is needed. */
export const expireHolds = (w: Wallet, now: string, newId: () => string): Transition => {
  let t: Transition = { wallet: w, entries: [] }
  for (const h of w.holds.filter((x) => x.status === "active" && x.expires_at <= now)) {
    const next = endHold(t.wallet, h.hold_id, "expire", newId(), now)!
    t = { wallet: next.wallet, entries: [...t.entries, ...next.entries] }
  }
  return t
}

/** Confirms every pending lot whose available_at has come (the programme's pending_days): one `confirm` entry each. */
export const confirmDue = (w: Wallet, now: string, newId: () => string): Transition => {
  let t: Transition = { wallet: w, entries: [] }
  for (const lot of w.lots.filter((l) => l.status === "pending" && l.available_at != null && l.available_at <= now).sort((a, b) => a.seq - b.seq)) {
    const next = resolvePending(t.wallet, lot.lot_id, "confirm", newId(), now)!
    t = { wallet: next.wallet, entries: [...t.entries, ...next.entries] }
  }
  return t
}

/**
 * What every command runs first: due pending lots confirm, due holds expire, then due lots expire (a hold only
 * reserves lots that outlive it).
 */
export const settle = (w: Wallet, now: string, newId: () => string): Transition => {
  const confirmed = confirmDue(w, now, newId)
  const holds = expireHolds(confirmed.wallet, now, newId)
  const lots = expire(holds.wallet, now, newId)
  return { wallet: lots.wallet, entries: [...confirmed.entries, ...holds.entries, ...lots.entries] }
}

/** How long a restored point lives when the lot it came from has expired meanwhile. */
export const RESTORED_LOT_DAYS = 30

/**
 * Gives a confirmed hold's points back (a credit reverse): to the same lots when they are still active and live,
 * otherwise to a new lot that expires RESTORED_LOT_DAYS from now. Lifetime points are unchanged (a refund).
 * `lots` are the lots the confirm drew from (from the wallet or loaded), `draws` what it drew.
 */
export const refundHold = (w: Wallet, input: { readonly hold_id: string; readonly entry_id: string; readonly draws: Draws; readonly new_lot_id: string }, now: string): Transition => {
  const points = input.draws.reduce((s, d) => s + d.points, 0)
  if (points <= 0) throw new RangeError("a refund restores at least one point")
  const changed = new Map<string, Lot>()
  let lost = 0
  for (const d of input.draws) {
    const lot = w.lots.find((l) => l.lot_id === d.lot_id)
    if (lot !== undefined && lot.status === "active" && isLive(lot, now)) {
      changed.set(lot.lot_id, { ...lot, points_remaining: lot.points_remaining + d.points, dirty: true })
    } else lost += d.points
  }
  let lots = replaceLots(w.lots, changed)
  const draws = input.draws.filter((d) => changed.has(d.lot_id)).map((d) => ({ ...d }))
  if (lost > 0) {
    const expiresAt = new Date(Date.parse(now) + RESTORED_LOT_DAYS * 86_400_000).toISOString()
    lots = [...lots, {
      lot_id: input.new_lot_id, status: "active", points_original: lost, points_remaining: lost, points_held: 0, expires_at: expiresAt, created_at: now,
      seq: w.next_seq, dirty: true
    }]
    draws.push({ lot_id: input.new_lot_id, points: lost })
  }
  const wallet: Wallet = { ...w, balance_active: w.balance_active + points, lots, next_seq: w.next_seq + (lost > 0 ? 2 : 1) }
  const entry = entryAt(wallet, { entry_id: input.entry_id, seq: wallet.next_seq - 1, kind: "credit_refund", status: "completed", points, draws, created_at: now, hold_id: input.hold_id })
  return { wallet, entries: [entry] }
}
