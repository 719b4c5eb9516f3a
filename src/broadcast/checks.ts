import { segmentDefinitions } from "../../core/broadcast/reads.ts"
import { contentIssues } from "../../core/broadcast/render.ts"
import type { Tx } from "../../core/db/Database.ts"
import { customFieldDefs } from "../../core/segment/customFields.ts"
import { validateDefinition } from "../../core/segment/validate.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { CreateBroadcastRequest } from "../../schemas/broadcastApi.ts"

export interface Issue {
  readonly path: string
  readonly message: string
}

/**
 * Every problem of a broadcast against itself and the account, each at its field: the content for the channel (its
 * merge tags and parameter paths known), the audience's segments in this account and mode, an inline definition
 * against the account's custom fields, the hotel, a deadline before the send time, empty quiet hours.
 */
export const broadcastIssues = async (tx: Tx, scope: TenantScope, b: CreateBroadcastRequest): Promise<ReadonlyArray<Issue>> => {
  const ids = [...(b.audience.segment_id === undefined ? [] : [b.audience.segment_id]), ...(b.audience.exclude_segment_ids ?? [])]
  const [saved, customFields, hotel] = await Promise.all([
    ids.length === 0 ? Promise.resolve(new Map()) : segmentDefinitions(tx, scope, ids),
    b.audience.definition === undefined ? Promise.resolve([]) : customFieldDefs(tx, scope.tenant_id, scope.sandbox),
    b.hotel_id === undefined ? Promise.resolve([{}]) : tx`SELECT 1 FROM hotels WHERE id = ${b.hotel_id} AND tenant_id = ${scope.tenant_id}`
  ])
  const issues: Array<Issue> = [...contentIssues(b.channel, b.content)]
  if (b.audience.segment_id !== undefined && !saved.has(b.audience.segment_id)) {
    issues.push({ path: "audience.segment_id", message: "no such segment in this account and mode" })
  }
  ;(b.audience.exclude_segment_ids ?? []).forEach((id, i) => {
    if (!saved.has(id)) issues.push({ path: `audience.exclude_segment_ids[${i}]`, message: "no such segment in this account and mode" })
  })
  if (b.audience.definition !== undefined) {
    for (const p of validateDefinition(b.audience.definition, customFields)) issues.push({ path: `audience.definition.${p.path}`, message: p.message })
  }
  if (hotel.length === 0) issues.push({ path: "hotel_id", message: "no such hotel in this account" })
  if (b.schedule !== undefined && b.send_deadline !== undefined && Date.parse(b.send_deadline) <= Date.parse(b.schedule.send_at)) {
    issues.push({ path: "send_deadline", message: "must be after schedule.send_at" })
  }
  if (b.quiet_hours !== undefined && b.quiet_hours.from === b.quiet_hours.to) issues.push({ path: "quiet_hours.to", message: "must differ from quiet_hours.from" })
  return issues
}
