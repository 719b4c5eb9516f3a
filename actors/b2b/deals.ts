import { normaliseCode } from "../../core/normalise/b2b.ts"
import type { DealStage } from "../../schemas/b2b.ts"
import type { CodeRow, DealColumns, UpdateDeal } from "./writeProtocol.ts"

/** A stored deal. */
export interface DealRow extends DealColumns {
  readonly id: string
  readonly account_id: string
  readonly closed_at: string | null
  readonly version: number
}

const CLOSED: ReadonlySet<DealStage> = new Set(["won", "lost"])
export const isClosed = (stage: DealStage): boolean => CLOSED.has(stage)

export type DealChange =
  | { readonly ok: true; readonly deal: DealRow; readonly becameWon: boolean }
  | { readonly ok: false; readonly code: "DEAL_CLOSED" | "INVALID_DATES"; readonly field: string; readonly message: string }

/** A new deal as stored: closed at once when created won or lost. */
export const newDeal = (id: string, accountId: string, columns: DealColumns, now: string): DealRow => ({
  ...columns, id, account_id: accountId, closed_at: isClosed(columns.stage) ? now : null, version: 1
})

/**
 * A deal after a patch: fields sent replace stored ones (null clears). Open stages move freely, forwards and back
 * (sales cycles do); won and lost are final, so a closed deal's stage never changes.
 */
export const patchDeal = (existing: DealRow, set: UpdateDeal["set"], now: string): DealChange => {
  if (set.stage !== undefined && set.stage !== existing.stage && isClosed(existing.stage)) {
    return { ok: false, code: "DEAL_CLOSED", field: "stage", message: `The deal is ${existing.stage}; its stage can no longer change` }
  }
  const sent = Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)) as Partial<DealColumns>
  const next: DealRow = { ...existing, ...sent, version: existing.version + 1 }
  if (next.arrival !== null && next.departure !== null && next.departure < next.arrival) {
    return { ok: false, code: "INVALID_DATES", field: set.departure !== undefined ? "departure" : "arrival", message: "departure must not be before arrival" }
  }
  const closing = isClosed(next.stage) && !isClosed(existing.stage)
  return {
    ok: true,
    deal: closing ? { ...next, closed_at: now } : next,
    becameWon: next.stage === "won" && existing.stage !== "won"
  }
}

/**
 * The rate codes a won corporate-rate deal registers on its account: each code at each of the deal's hotels (or
 * chain-wide without hotels), valid over the contract (arrival to departure).
 */
export const codesToRegister = (deal: DealRow): Array<CodeRow> => {
  if (deal.type !== "corporate_rate" || deal.stage !== "won") return []
  const hotels: ReadonlyArray<string | null> = deal.hotel_ids.length > 0 ? deal.hotel_ids : [null]
  return deal.rate_codes.flatMap((display, i) =>
    hotels.map((hotel_id) => ({
      kind: "rate_code" as const, code: normaliseCode(display), display, hotel_id, valid_from: deal.arrival,
      valid_to: deal.departure, field: `rate_codes[${i}]`
    })))
}
