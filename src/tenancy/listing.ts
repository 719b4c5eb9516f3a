import type { Tx } from "../../core/db/Database.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"
import { exactTime } from "../http/cursor.ts"

/** The keyset columns `newestFirst` pages on, to add to a select list: `cursor_at` (exact time text) and `cursor_id`. */
export const CURSOR_COLUMNS = `${exactTime("created_at")} AS cursor_at, id AS cursor_id`

/**
 * One page of an account's rows of `table` (a table of account configuration: hotels, keys, integrations), newest
 * first on (created_at, id): the items under their noun and the next page's cursor, in the one list shape.
 * `columns` is trusted SQL (a constant of the caller) and must include `CURSOR_COLUMNS`.
 */
export const newestFirst = async <const N extends string, A>(
  tx: Tx,
  from: { readonly table: string; readonly columns: string; readonly tenantId: string },
  page: PageRequest,
  noun: N,
  item: (row: Record<string, unknown>) => A
) => {
  const rows = await tx.unsafe(
    `SELECT ${from.columns} FROM ${from.table} WHERE tenant_id = $1
       AND ($2::text IS NULL OR (created_at, id) < ($2::text::timestamptz, $3::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $4`,
    [from.tenantId, page.after?.at ?? null, page.after?.id ?? null, page.limit + 1]
  )
  // One row more than the page: whether a next page exists.
  const { shown, next_cursor } = pageOf(rows, page.limit, (r) => ({ at: r.cursor_at as string, id: r.cursor_id as string }))
  return { [noun]: shown.map(item), next_cursor } as { readonly [K in N]: Array<A> } & { readonly next_cursor: string | null }
}
