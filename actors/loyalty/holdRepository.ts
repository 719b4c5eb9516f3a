import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Lot } from "./state.ts"

// Credit-hold, refund and reversal rows as the member actor reads and writes them.

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

export interface HoldRow {
  readonly hold_id: string
  readonly member_id: string
  readonly status: "active" | "confirmed" | "released" | "expired" | "reversed"
  readonly reservation_id: string
  readonly points: number
  readonly amount_minor: number
  /** null for a bid hold (points only). */
  readonly currency: string | null
  readonly expires_at: string
  readonly created_at: string
  readonly fingerprint: unknown
  readonly refund_id: string | null
  readonly points_restored: number | null
}

const holdColumns = (tx: Tx) => tx`h.hold_id, h.member_id, h.status, h.reservation_id, h.points::float8 AS points,
  h.amount_minor::float8 AS amount_minor, trim(h.currency) AS currency, h.expires_at, h.created_at, h.fingerprint, r.refund_id,
  r.points_restored::float8 AS points_restored`
const asHold = (r: Record<string, unknown>) => ({ ...r, expires_at: iso(r.expires_at)!, created_at: iso(r.created_at)! }) as unknown as HoldRow

/** The hold a key already made, in this tenant and mode (any member), among credit holds or bid holds (keys apart). */
export const findHoldByKey = async (tx: Tx, scope: TenantScope, key: string, kind: "credit" | "bid" = "credit"): Promise<HoldRow | undefined> => {
  const [row] = await tx`SELECT ${holdColumns(tx)} FROM loyalty_holds h LEFT JOIN loyalty_refunds r ON r.hold_id = h.hold_id
    WHERE h.tenant_id = ${scope.tenant_id} AND h.sandbox = ${scope.sandbox} AND h.kind = ${kind} AND h.external_reference_id = ${key}`
  return row === undefined ? undefined : asHold(row)
}

/** The member's holds among `holdIds`, in the order asked (missing ones left out). */
export const findHolds = async (tx: Tx, memberId: string, holdIds: ReadonlyArray<string>): Promise<Array<HoldRow>> => {
  const rows = (await tx`SELECT ${holdColumns(tx)} FROM loyalty_holds h LEFT JOIN loyalty_refunds r ON r.hold_id = h.hold_id
    WHERE h.member_id = ${memberId} AND h.hold_id = ANY(${holdIds as Array<string>}::uuid[])`).map(asHold)
  return holdIds.flatMap((id) => rows.filter((r) => r.hold_id === id))
}

/** What a hold's confirm drew from each lot, with those lots as they are now (a refund gives the points back to them). */
export const confirmDraws = async (tx: Tx, holdId: string) => {
  const rows = await tx`
    SELECT el.lot_id, el.points::float8 AS drawn, l.status, l.points_original::float8 AS points_original,
      l.points_remaining::float8 AS points_remaining, l.points_held::float8 AS points_held, l.expires_at, l.created_at, l.seq::float8 AS seq
    FROM loyalty_entries e JOIN loyalty_entry_lots el ON el.entry_id = e.entry_id JOIN loyalty_lots l ON l.lot_id = el.lot_id
    WHERE e.hold_id = ${holdId} AND e.kind = 'hold_confirm' ORDER BY l.seq`
  return {
    draws: rows.map((r) => ({ lot_id: r.lot_id as string, points: r.drawn as number })),
    lots: rows.map((r) => ({
      lot_id: r.lot_id, status: r.status, points_original: r.points_original, points_remaining: r.points_remaining, points_held: r.points_held,
      expires_at: iso(r.expires_at), created_at: iso(r.created_at)!, seq: r.seq
    }) as Lot)
  }
}

export const insertRefund = (tx: Tx, scope: TenantScope, r: { refund_id: string; hold_id: string; entry_id: string; points: number; reason: string | null; now: string }) =>
  tx`INSERT INTO loyalty_refunds (refund_id, hold_id, entry_id, tenant_id, points_restored, reason, created_at)
    VALUES (${r.refund_id}, ${r.hold_id}, ${r.entry_id}, ${scope.tenant_id}, ${r.points}, ${r.reason}, ${r.now})`

export const markReversed = (tx: Tx, holdId: string) =>
  tx`UPDATE loyalty_holds SET status = 'reversed', reversed_at = now() WHERE hold_id = ${holdId} AND status = 'confirmed'`

/** The entry that already reversed an earn, if any. */
export const findReversal = async (tx: Tx, earnEntryId: string) => {
  const [row] = await tx`SELECT entry_id FROM loyalty_entries WHERE reverses_entry_id = ${earnEntryId} AND kind = 'reverse'`
  return row?.entry_id as string | undefined
}

/** Takes a reversed stay's points and nights off the qualifying totals (never below zero). */
export const subtractQualifying = (tx: Tx, memberId: string, points: number, nights: number) =>
  tx`UPDATE loyalty_members SET qualifying_points = greatest(0, qualifying_points - ${points}),
    qualifying_nights = greatest(0, qualifying_nights - ${nights}) WHERE member_id = ${memberId}`
