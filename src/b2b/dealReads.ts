import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { DealView } from "../../schemas/b2b.ts"
import { encodeCursor, isUuid, type Page } from "./paging.ts"

// Reads of deals, run inside `withTenant`.

const DEAL_COLUMNS = `d.id AS deal_id, d.account_id, d.contact_id, d.name, d.type, d.stage, d.lost_reason,
  d.hotel_ids::text[] AS hotel_ids, to_char(d.arrival, 'YYYY-MM-DD') AS arrival,
  to_char(d.departure, 'YYYY-MM-DD') AS departure, d.room_nights, d.value_amount::float8 AS value_amount, d.value_currency,
  d.probability, to_char(d.expected_close, 'YYYY-MM-DD') AS expected_close, d.rate_codes, d.external_id,
  d.owner_user_id, d.closed_at, d.created_at, d.updated_at, d.created_at::text AS created_key`

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null)

const toView = ({ value_amount, value_currency, created_key: _key, ...d }: Record<string, unknown>): DealView => ({
  ...(d as unknown as DealView),
  value: value_amount === null ? null : { amount: value_amount as number, currency: value_currency as string },
  closed_at: iso(d.closed_at),
  created_at: iso(d.created_at)!,
  updated_at: iso(d.updated_at)!
})

export const readDeal = async (tx: Tx, scope: TenantScope, id: string): Promise<DealView | undefined> => {
  if (!isUuid(id)) return undefined
  const [row] = await tx.unsafe(`SELECT ${DEAL_COLUMNS} FROM b2b_deals d WHERE d.tenant_id = $1 AND d.sandbox = $2 AND d.id = $3`, [
    scope.tenant_id, scope.sandbox, id
  ])
  return row === undefined ? undefined : toView(row)
}

/** Deals newest first (keyset pages on creation time and id), of one account or all, of one stage or all. */
export const listDeals = async (tx: Tx, scope: TenantScope, filter: { account_id?: string; stage?: string }, page: Page) => {
  const rows = await tx.unsafe(
    `SELECT ${DEAL_COLUMNS} FROM b2b_deals d
     WHERE d.tenant_id = $1 AND d.sandbox = $2 AND ($3::uuid IS NULL OR d.account_id = $3::uuid)
       AND ($4::text IS NULL OR d.stage = $4::text)
       AND ($5::timestamptz IS NULL OR (d.created_at, d.id) < ($5::timestamptz, $6::uuid))
     ORDER BY d.created_at DESC, d.id DESC LIMIT $7`,
    [scope.tenant_id, scope.sandbox, filter.account_id ?? null, filter.stage ?? null, page.after?.key ?? null, page.after?.id ?? null, page.limit + 1]
  )
  const shown = rows.slice(0, page.limit)
  const last = shown.at(-1)
  return {
    deals: shown.map(toView),
    next_cursor: rows.length > page.limit && last ? encodeCursor(last.created_key as string, last.deal_id as string) : null
  }
}
