import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"
import type { MessageFilters } from "./listFilters.ts"
import { COLUMNS, type MessageRecord, withHistory } from "./read.ts"

/**
 * The tenant's messages (its mode's), newest first, keyset-paginated on (created_at, id), in the item shape of a
 * contact's messages. Walks `messages_tenant_created` (migration 040) and keeps the rows the filters match; a journey
 * is matched through its runs (a message names its run, the run its journey), a broadcast and a contact through
 * their own indexes.
 */
export const listMessages = async (tx: Tx, scope: TenantScope, f: MessageFilters, page: PageRequest) => {
  const after = page.after
  const rows = await tx<Array<MessageRecord & { cursor_at: string }>>`
    SELECT ${tx.unsafe(COLUMNS)}, ${tx.unsafe(exactTime("created_at"))} AS cursor_at FROM messages
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      ${f.channel === undefined ? tx`` : tx`AND channel = ${f.channel}`}
      ${f.status === undefined ? tx`` : tx`AND status = ${f.status}`}
      ${f.direction === undefined ? tx`` : tx`AND direction = ${f.direction}`}
      ${f.template === undefined ? tx`` : tx`AND template_name = ${f.template}`}
      ${f.hotel_id === undefined ? tx`` : tx`AND hotel_id = ${f.hotel_id}::uuid`}
      ${f.contact_id === undefined ? tx`` : tx`AND contact_id = ${f.contact_id}::uuid`}
      ${f.broadcast_id === undefined ? tx`` : tx`AND broadcast_id = ${f.broadcast_id}::uuid`}
      ${f.journey_id === undefined ? tx`` : tx`AND journey_run_id IN (
        SELECT r.id FROM journey_runs r WHERE r.journey_id = ${f.journey_id}::uuid AND r.tenant_id = ${scope.tenant_id} AND r.sandbox = ${scope.sandbox})`}
      ${f.from === undefined ? tx`` : tx`AND created_at >= ${f.from}::timestamptz`}
      ${f.to === undefined ? tx`` : tx`AND created_at < ${f.to}::timestamptz`}
      ${after === undefined ? tx`` : tx`AND (created_at, id) < (${after.at}::text::timestamptz, ${after.id}::uuid)`}
    ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1}`
  const { shown, next_cursor } = pageOf(rows, page.limit, (r) => ({ at: r.cursor_at, id: r.id }))
  return { messages: await withHistory(tx, shown), next_cursor }
}
