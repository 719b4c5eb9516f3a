import { jsonb, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Entry, Wallet } from "./state.ts"

// Writing one transition of a member's wallet: lots, holds, entries and the member's balances, which the deferred
// constraint triggers of migrations 012 and 013 check against each other at commit.

export interface EntryExtras {
  readonly op?: string
  readonly external_reference_id?: string
  readonly fingerprint?: unknown
  readonly reward_id?: string | null
  readonly reservation_id?: string | null
  readonly reason?: string | null
  /** Tier totals a new stay lot carries (added to the member when it is confirmed). */
  readonly qualifying?: { readonly points: number; readonly nights: number }
  /** What a new hold's row carries beyond the pure hold. */
  readonly newHold?: NewHold
}

export interface NewHold {
  /** A credit hold's reservation (null for a bid hold). */
  readonly reservation_id: string | null
  readonly external_reference_id: string
  readonly fingerprint: string
  readonly amount_minor: number
  readonly currency: string | null
  readonly created_at: string
  /** A bid hold names its auction (absent: a credit hold). */
  readonly auction_id?: string
}

/**
 * Writes a transition: changed and new lots, the entries (the first one carrying the request's idempotency key),
 * what each drew, and the member's balances. The deferred triggers check at commit that they all agree.
 */
export const saveTransition = async (
  tx: Tx, scope: TenantScope, memberId: string, before: Wallet, wallet: Wallet, entries: ReadonlyArray<Entry>, extras: EntryExtras = {}
): Promise<void> => {
  const known = new Set(before.lots.map((l) => l.lot_id))
  for (const lot of wallet.lots.filter((l) => l.dirty)) {
    if (known.has(lot.lot_id)) {
      // points_original only ever drops, by a partial confirm of a pending earn (the rest voided).
      await tx`UPDATE loyalty_lots SET status = ${lot.status}, points_original = least(points_original, ${lot.points_original}),
          points_remaining = ${lot.points_remaining}, points_held = ${lot.points_held}
        WHERE lot_id = ${lot.lot_id}`
    } else {
      await tx`INSERT INTO loyalty_lots (lot_id, member_id, tenant_id, sandbox, status, points_original, points_remaining, points_held, expires_at,
          available_at, created_at, seq, qualifying_points, qualifying_nights)
        VALUES (${lot.lot_id}, ${memberId}, ${scope.tenant_id}, ${scope.sandbox}, ${lot.status}, ${lot.points_original}, ${lot.points_remaining},
          ${lot.points_held}, ${lot.expires_at}, ${lot.available_at ?? null}, ${lot.created_at}, ${lot.seq}, ${extras.qualifying?.points ?? 0},
          ${extras.qualifying?.nights ?? 0})`
    }
  }
  const knownHolds = new Set(before.holds.map((h) => h.hold_id))
  for (const hold of wallet.holds.filter((h) => h.dirty)) {
    if (knownHolds.has(hold.hold_id)) {
      await tx`UPDATE loyalty_holds SET status = ${hold.status},
          confirmed_at = ${hold.status === "confirmed" ? tx`now()` : tx`confirmed_at`},
          released_at = ${hold.status === "released" ? tx`now()` : tx`released_at`},
          expired_at = ${hold.status === "expired" ? tx`now()` : tx`expired_at`}
        WHERE hold_id = ${hold.hold_id} AND status = 'active'`
    } else {
      const h = extras.newHold!
      await tx`INSERT INTO loyalty_holds (hold_id, member_id, tenant_id, sandbox, reservation_id, external_reference_id, fingerprint, points,
          amount_minor, currency, status, expires_at, created_at, kind, auction_id)
        VALUES (${hold.hold_id}, ${memberId}, ${scope.tenant_id}, ${scope.sandbox}, ${h.reservation_id}, ${h.external_reference_id},
          ${jsonb(tx, h.fingerprint)}, ${hold.points}, ${h.amount_minor}, ${h.currency}, ${hold.status}, ${hold.expires_at}, ${h.created_at},
          ${h.auction_id === undefined ? "credit" : "bid"}, ${h.auction_id ?? null})`
      for (const d of hold.draws) {
        await tx`INSERT INTO loyalty_hold_lots (hold_id, lot_id, tenant_id, points) VALUES (${hold.hold_id}, ${d.lot_id}, ${scope.tenant_id}, ${d.points})`
      }
    }
  }
  for (const [i, e] of entries.entries()) {
    const x: EntryExtras = i === entries.length - 1 ? extras : {}
    await tx`INSERT INTO loyalty_entries (entry_id, member_id, tenant_id, sandbox, seq, kind, status, points, pending_points, held_points,
        balance_after, pending_after, held_after, op, external_reference_id, fingerprint, reward_id, reservation_id, reason, hold_id,
        reverses_entry_id, created_at)
      VALUES (${e.entry_id}, ${memberId}, ${scope.tenant_id}, ${scope.sandbox}, ${e.seq}, ${e.kind}, ${e.status}, ${e.points}, ${e.pending_points},
        ${e.held_points}, ${e.balance_after}, ${e.pending_after}, ${e.held_after}, ${x.op ?? null}, ${x.external_reference_id ?? null},
        ${x.fingerprint === undefined ? null : jsonb(tx, x.fingerprint)}, ${x.reward_id ?? null}, ${x.reservation_id ?? null},
        ${x.reason ?? (e.kind === "expire" ? "lot expired" : e.kind === "hold_expire" ? "hold expired" : null)}, ${e.hold_id ?? null},
        ${e.reverses_entry_id ?? null}, ${e.created_at})`
    for (const d of e.draws) {
      await tx`INSERT INTO loyalty_entry_lots (entry_id, lot_id, tenant_id, points) VALUES (${e.entry_id}, ${d.lot_id}, ${scope.tenant_id}, ${d.points})`
    }
  }
  // A confirmed pending lot adds what it qualifies for (a stay's points and nights) to the tier totals, whichever way it
  // was confirmed (an explicit confirm, or its pending_days having passed).
  const confirmedLots = entries.filter((e) => e.kind === "confirm").flatMap((e) => e.draws.map((d) => d.lot_id))
  if (confirmedLots.length > 0) {
    await tx`UPDATE loyalty_members m SET qualifying_points = m.qualifying_points + q.p, qualifying_nights = m.qualifying_nights + q.n
      FROM (SELECT coalesce(sum(qualifying_points), 0) AS p, coalesce(sum(qualifying_nights), 0) AS n FROM loyalty_lots WHERE lot_id = ANY(${confirmedLots}::uuid[])) q
      WHERE m.member_id = ${memberId}`
  }
  if (entries.length > 0 || wallet !== before) {
    await tx`UPDATE loyalty_members SET balance_active = ${wallet.balance_active}, balance_pending = ${wallet.balance_pending},
      balance_held = ${wallet.balance_held}, lifetime_points = ${wallet.lifetime_points}, updated_at = now() WHERE member_id = ${memberId}`
  }
}
