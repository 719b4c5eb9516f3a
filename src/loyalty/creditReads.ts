import type { Tx } from "../../core/db/Database.ts"
import type { Principal } from "../../schemas/api.ts"
import type { ReservationSnapshot } from "../../schemas/loyaltyAnswers.ts"

// Reads of the credit, reversal and report endpoints, each inside the principal's tenant and mode.

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

/** Credit holds (never an auction's bid holds) named by hold_id, by the key that placed them, or by reservation, with their member and status. */
export const findHoldRefs = async (tx: Tx, p: Principal, by: { hold_id?: string; external_reference_id?: string; reservation_id?: string }) =>
  (await tx`SELECT hold_id, member_id, status FROM loyalty_holds WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND kind = 'credit' AND ${
    by.hold_id !== undefined ? tx`hold_id = ${by.hold_id}`
    : by.external_reference_id !== undefined ? tx`external_reference_id = ${by.external_reference_id}`
    : tx`reservation_id = ${by.reservation_id!}`
  } ORDER BY created_at, hold_id`) as unknown as Array<{ hold_id: string; member_id: string; status: string }>

/** Earn transactions of a reservation (the earn entries that carry its id), with their members. */
export const findReservationEarns = async (tx: Tx, p: Principal, reservationId: string) =>
  (await tx`SELECT entry_id, member_id FROM loyalty_entries
    WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND reservation_id = ${reservationId} AND kind = 'earn' ORDER BY seq`) as unknown as Array<{ entry_id: string; member_id: string }>

/**
 * Outstanding points of the tenant and mode, in one statement (one snapshot): the sums of the members' lots as of
 * now (a lot past its expiry counts as expired, a hold past its expiry as released, recorded or not), plus totals
 * per movement kind and the stored wallet sums they must equal.
 */
export const readLiability = async (tx: Tx, p: Principal) => {
  const [row] = await tx`
    WITH lots AS (
      SELECT coalesce(sum(points_remaining) FILTER (WHERE (status = 'active' OR (status = 'pending' AND available_at <= now()))
          AND (expires_at IS NULL OR expires_at > now())), 0)::float8 AS active,
        coalesce(sum(points_remaining) FILTER (WHERE status = 'pending' AND (available_at IS NULL OR available_at > now())), 0)::float8 AS pending,
        coalesce(sum(points_remaining) FILTER (WHERE status = 'active' AND expires_at > now() AND expires_at <= now() + interval '30 days'), 0)::float8 AS d30,
        coalesce(sum(points_remaining) FILTER (WHERE status = 'active' AND expires_at > now() AND expires_at <= now() + interval '90 days'), 0)::float8 AS d90,
        coalesce(sum(points_remaining) FILTER (WHERE status = 'active' AND expires_at > now() AND expires_at <= now() + interval '365 days'), 0)::float8 AS d365
      FROM loyalty_lots WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}
    ), holds AS (
      SELECT coalesce(sum(points), 0)::float8 AS held FROM loyalty_holds
      WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND status = 'active' AND expires_at > now()
    ), members AS (
      SELECT count(*) FILTER (WHERE kind = 'member')::int AS total, count(*) FILTER (WHERE kind = 'member' AND status = 'active')::int AS active_members,
        coalesce(sum(balance_active), 0)::float8 AS wallets_active, coalesce(sum(balance_pending), 0)::float8 AS wallets_pending,
        coalesce(sum(balance_held), 0)::float8 AS wallets_held
      FROM loyalty_members WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}
    ), moves AS (
      SELECT coalesce(sum(points) FILTER (WHERE kind IN ('earn', 'confirm', 'opening_balance') OR (kind = 'balance_set' AND points > 0)), 0)::float8 AS issued,
        coalesce(-sum(points) FILTER (WHERE kind IN ('redeem', 'discount', 'hold_confirm')), 0)::float8 AS redeemed,
        coalesce(-sum(points) FILTER (WHERE kind = 'expire'), 0)::float8 AS expired,
        coalesce(-sum(points) FILTER (WHERE kind = 'reverse' OR (kind = 'balance_set' AND points < 0)), 0)::float8 AS reversed,
        coalesce(sum(points) FILTER (WHERE kind = 'credit_refund'), 0)::float8 AS restored
      FROM loyalty_entries WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}
    )
    SELECT * FROM lots, holds, members, moves`
  return row as unknown as Record<"active" | "pending" | "d30" | "d90" | "d365" | "held" | "total" | "active_members" | "wallets_active" | "wallets_pending"
    | "wallets_held" | "issued" | "redeemed" | "expired" | "reversed" | "restored", number>
}

type SnapshotHold = typeof ReservationSnapshot.Type["credit"]["holds"][number]
/** A hold of a reservation as stored: its amount in minor units (the snapshot answers it in major units). */
export type HoldRow = Omit<SnapshotHold, "amount"> & { readonly amount_minor: number | null }
export interface EarnRow {
  readonly transaction_id: string
  readonly member_id: string
  readonly points: number
  readonly lot_status: string
  readonly reversal_id: string | null
  readonly reversed_points: number | null
  readonly created_at: string
}

/** A reservation's holds (with refunds) and earnings, across the members they belong to. */
export const readReservation = async (tx: Tx, p: Principal, reservationId: string) => {
  const holds = await tx`
    SELECT h.hold_id, h.member_id, h.external_reference_id, h.status, h.points::float8 AS points, h.amount_minor::float8 AS amount_minor,
      trim(h.currency) AS currency, h.created_at, h.expires_at, h.confirmed_at, h.released_at, h.expired_at, h.reversed_at,
      r.refund_id, r.points_restored::float8 AS points_restored
    FROM loyalty_holds h LEFT JOIN loyalty_refunds r ON r.hold_id = h.hold_id
    WHERE h.tenant_id = ${p.tenant_id} AND h.sandbox = ${p.sandbox} AND h.reservation_id = ${reservationId} ORDER BY h.created_at, h.hold_id`
  const earns = await tx`
    SELECT e.entry_id AS transaction_id, e.member_id, l.points_original::float8 AS points, l.status AS lot_status, rv.entry_id AS reversal_id,
      rv.points::float8 AS reversed_points, e.created_at
    FROM loyalty_entries e JOIN loyalty_entry_lots el ON el.entry_id = e.entry_id JOIN loyalty_lots l ON l.lot_id = el.lot_id
    LEFT JOIN loyalty_entries rv ON rv.reverses_entry_id = e.entry_id AND rv.kind = 'reverse'
    WHERE e.tenant_id = ${p.tenant_id} AND e.sandbox = ${p.sandbox} AND e.reservation_id = ${reservationId} AND e.kind = 'earn' ORDER BY e.seq`
  const stamp = (r: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? iso(v) : v]))
  return { holds: holds.map(stamp) as unknown as Array<HoldRow>, earns: earns.map(stamp) as unknown as Array<EarnRow> }
}
