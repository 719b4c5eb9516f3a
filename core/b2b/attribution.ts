import { PREPARED, type Sql, type Tx } from "../db/Database.ts"
import type { Attribution } from "../../schemas/b2b.ts"

// How a stored attribution reads: the reservation actor answers and emits it, the reservation read shows it. One
// mapping here so the API, the actor's answer and the webhook payload can never disagree.

/** A reservation no rule attributed and no one decided about. */
export const NO_ATTRIBUTION: Attribution = {
  account_id: null, rule: null, matched: null, path: [], suggestion: null, manual: false, deal_id: null, decided_at: null
}

/** The columns `toAttribution` reads, selected from `b2b_attributions t` (with the account's path). */
export const ATTRIBUTION_COLUMNS = `t.account_id, t.rule, t.matched, t.deal_id, t.suggestion_account_id, t.suggestion_domain,
  t.manual, t.decided_at, (SELECT a.path::text[] FROM b2b_accounts a WHERE a.id = t.account_id) AS path`

export interface AttributionRow {
  readonly account_id: string | null
  readonly rule: string | null
  readonly matched: string | null
  readonly deal_id: string | null
  readonly suggestion_account_id: string | null
  readonly suggestion_domain: string | null
  readonly manual: boolean
  readonly decided_at: Date | string | null
  readonly path: ReadonlyArray<string> | null
}

export const toAttribution = (row: AttributionRow | undefined): Attribution =>
  row === undefined
    ? NO_ATTRIBUTION
    : {
      account_id: row.account_id,
      rule: row.rule as Attribution["rule"],
      matched: row.matched,
      path: row.path ?? [],
      suggestion: row.suggestion_account_id !== null && row.suggestion_domain !== null
        ? { account_id: row.suggestion_account_id, rule: "email_domain", matched: row.suggestion_domain }
        : null,
      manual: row.manual,
      deal_id: row.deal_id,
      decided_at: row.decided_at instanceof Date ? row.decided_at.toISOString() : row.decided_at
    }

/** The attribution of one reservation (by the platform's id). */
export const readAttribution = async (sql: Sql | Tx, reservationId: string): Promise<Attribution> => {
  const [row] = await sql.unsafe(`SELECT ${ATTRIBUTION_COLUMNS} FROM b2b_attributions t WHERE t.reservation_id = $1`, [reservationId], PREPARED)
  return toAttribution(row as AttributionRow | undefined)
}
