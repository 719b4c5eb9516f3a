import type { Earn, Redeem } from "../../actors/loyalty/protocol.ts"
import type { EarnRequest, RedeemRequest } from "../../schemas/loyalty.ts"

// Loyalty write requests → member actor commands (the member is resolved separately, by the ingress's read).

type Issues = Record<string, Array<string>>
type Checked<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly details: Issues }

/**
 * The retry key: `external_reference_id` in the body or the `Idempotency-Key` header. Both may be sent only when
 * equal; one is required, since an earn or a redemption without one could be applied twice by a client's retry.
 */
export const retryKey = (body: string | undefined, header: string | undefined):
  { readonly ok: true; readonly key: string } | { readonly ok: false; readonly details: Issues } => {
  const h = header?.trim()
  if (body !== undefined && h !== undefined && h !== "" && body !== h) {
    return { ok: false, details: { external_reference_id: ["differs from the Idempotency-Key header; send one, or the same value in both"] } }
  }
  const key = body ?? (h === "" ? undefined : h)
  if (key === undefined) return { ok: false, details: { external_reference_id: ["is required (or an Idempotency-Key header)"] } }
  if ([...key].length > 200) return { ok: false, details: { "Idempotency-Key": ["must be at most 200 characters"] } }
  return { ok: true, key }
}

/** Explicit points, or a stay (amount in a currency, plus nights) for the programme to convert: exactly one. */
export const toEarn = (r: EarnRequest, key: string): Checked<Omit<Earn, "member_id">> => {
  const stay = r.amount !== undefined || r.nights !== undefined
  if ((r.points !== undefined) === stay) {
    return { ok: false, details: { points: ["send either points, or a stay's amount (with currency) and nights"] } }
  }
  if (r.amount !== undefined && r.currency === undefined) return { ok: false, details: { currency: ["is required with amount"] } }
  const base = { external_reference_id: key, status: r.status ?? "confirmed", reason: r.reason ?? null }
  if (r.points !== undefined) return { ok: true, value: { ...base, points: r.points } }
  return {
    ok: true,
    value: {
      ...base,
      stay: {
        amount: r.amount ?? 0, currency: (r.currency ?? "").toUpperCase(), nights: r.nights ?? 0, reservation_id: r.reservation_id ?? null,
        check_in: r.check_in ?? null, check_out: r.check_out ?? null, hotel: r.hotel ?? null
      }
    }
  }
}

/** A reward by id, or an amount of points: exactly one. */
export const toRedeem = (r: RedeemRequest, key: string): Checked<Omit<Redeem, "member_id">> => {
  if ((r.reward_id !== undefined) === (r.points !== undefined)) {
    return { ok: false, details: { reward_id: ["send either reward_id or points"] } }
  }
  return {
    ok: true,
    value: {
      external_reference_id: key, notes: r.notes ?? null,
      ...(r.reward_id !== undefined ? { reward_id: r.reward_id } : { points: r.points! }),
      ...(r.status !== undefined ? { status: r.status } : {})
    }
  }
}

