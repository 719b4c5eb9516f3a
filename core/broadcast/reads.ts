import type { Tx } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"

// A broadcast's reads that both the broadcast actor and the ingress make (its counts, the hotel its merge tags read,
// the definitions of the segments it names): shared here, since the ingress may use only an actor's protocol.

export interface OutcomeRow {
  readonly status: string
  readonly reason: string | null
  readonly n: number
}

/**
 * Recipients of each broadcast by their status as a reader sees it (a queued recipient takes its message's) and skip
 * reason: one statement for a page of broadcasts.
 */
export const outcomesOf = async (tx: Tx, ids: ReadonlyArray<string>): Promise<ReadonlyMap<string, ReadonlyArray<OutcomeRow>>> => {
  const rows = ids.length === 0 ? [] : await tx<Array<OutcomeRow & { broadcast_id: string }>>`
    SELECT r.broadcast_id::text AS broadcast_id,
      CASE WHEN r.status = 'queued' THEN coalesce(m.status, 'queued') ELSE r.status END AS status,
      coalesce(r.skip_reason, m.skip_reason) AS reason, count(*)::int AS n
    FROM broadcast_recipients r LEFT JOIN messages m ON m.id = r.message_id
    WHERE r.broadcast_id = ANY(${ids as Array<string>}::uuid[]) GROUP BY 1, 2, 3`
  const byId = new Map<string, Array<OutcomeRow>>(ids.map((id) => [id, []]))
  for (const { broadcast_id, ...row } of rows) byId.get(broadcast_id)?.push(row)
  return byId
}

/** One broadcast's outcomes (outcomesOf). */
export const outcomes = async (tx: Tx, id: string): Promise<ReadonlyArray<OutcomeRow>> => (await outcomesOf(tx, [id])).get(id) ?? []

/** Where recipients of a broadcast's hotel stay, for hotel merge tags. */
export const hotelOf = async (tx: Tx, hotelId: string | null) =>
  hotelId === null ? null : (await tx<Array<{ name: string; code: string }>>`SELECT name, code FROM hotels WHERE id = ${hotelId}`)[0] ?? null

/** The definitions of saved segments, by id (those of another tenant are not found under row-level security). */
export const segmentDefinitions = async (tx: Tx, scope: TenantScope, ids: ReadonlyArray<string>) =>
  new Map((await tx<Array<{ id: string; definition: SegmentDefinition }>>`
    SELECT id::text AS id, definition FROM segments WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      AND id = ANY(${ids as Array<string>}::uuid[])`).map((r) => [r.id, r.definition]))
