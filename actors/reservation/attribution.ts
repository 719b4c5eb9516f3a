import { type CodeKind, codeOfKind } from "../../core/normalise/b2b.ts"
import type { ReservationRow } from "./state.ts"

/** The automatic rules, in the order the spec gives: agency code, then promo or rate code, then agency id. */
export type AutomaticRule = "agency_code" | "promo_code" | "rate_code" | "agency_id"

/** One code of the reservation to look up: the first (lowest `ord`) that names an account wins. */
export interface Candidate {
  readonly kind: CodeKind
  readonly code: string
  readonly rule: AutomaticRule
  readonly ord: number
}

const text = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : undefined

/**
 * The codes a reservation carries, in precedence order (pure, so redeliveries and replays decide alike):
 * 1. `agency_code` as an agency code;
 * 2. `metadata.promo_code` as a promo code, then each stay's `rate_code` in stay order, then `rate_plan` (guests API
 *    bookings) as rate codes (the hotel-specific registration before the chain-wide one and the validity on the
 *    booking date are decided by the lookup);
 * 3. the agency id: `metadata.agency_id` (or `travel_agent_id`) as the account's external id or IATA number,
 *    `metadata.iata`, and `agency_code` as an IATA number (PMSs often carry the IATA number there).
 * Codes are compared normalised (core/normalise/b2b.ts), each (kind, code) once.
 */
export const attributionCandidates = (r: Pick<ReservationRow, "agency_code" | "metadata" | "stays" | "rate_plan">): Array<Candidate> => {
  const out: Array<Candidate> = []
  const seen = new Set<string>()
  const add = (kind: CodeKind, raw: string | null | undefined, rule: AutomaticRule) => {
    if (raw == null) return
    const code = codeOfKind(kind, raw)
    if (code === undefined || seen.has(`${kind}\u0000${code}`)) return
    seen.add(`${kind}\u0000${code}`)
    out.push({ kind, code, rule, ord: out.length })
  }
  const meta = r.metadata ?? {}
  add("agency_code", r.agency_code, "agency_code")
  add("promo_code", text(meta.promo_code), "promo_code")
  for (const stay of r.stays) add("rate_code", text((stay as { rate_code?: unknown } | null)?.rate_code), "rate_code")
  add("rate_code", r.rate_plan, "rate_code")
  for (const id of [text(meta.agency_id), text(meta.travel_agent_id)]) {
    add("external_id", id, "agency_id")
    add("iata", id, "agency_id")
  }
  add("iata", text(meta.iata) ?? text(meta.iata_number), "agency_id")
  add("iata", r.agency_code, "agency_id")
  return out
}
