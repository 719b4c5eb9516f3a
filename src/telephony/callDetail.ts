import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { CallRecord } from "../../schemas/telephony.ts"
import { asJson } from "../http/answers.ts"
import { isUuid } from "../../schemas/common.ts"


/**
 * One call record of the tenant, whole: transcript turns, summary, recording, agent, caller, metadata. Calls are live
 * data (CTI tokens have no sandbox mode), so a sandbox key finds none. An id that is no UUID names no call (it is not
 * sent to PostgreSQL, where it would fail the uuid cast). Run inside `withTenant`: row-level security confines the
 * read to the tenant as well as the filter.
 */
export const readCall = async (tx: Tx, scope: TenantScope, callRecordId: string): Promise<CallRecord | undefined> => {
  if (!isUuid(callRecordId)) return undefined
  const [row] = await tx`
    SELECT id AS call_record_id, provider, call_id, direction, from_number, to_number, contact_id, status, answered,
      outcome, outcome_raw, started_at, answered_at, ended_at, duration_seconds, agent, caller, recording_url, transcript,
      transcript_truncated, transcript_received_at, summary, language, metadata, created_at, updated_at
    FROM calls
    WHERE id = ${callRecordId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  if (!row) return undefined
  const turns = row.transcript as ReadonlyArray<{ speaker: string; text: string; offset_ms?: number | null }> | null
  // Timestamps as ISO strings, as the JSON answer carries them.
  return asJson({
    ...row,
    transcript: turns === null ? null : turns.map((t) => ({ speaker: t.speaker, text: t.text, offset_ms: t.offset_ms ?? null }))
  }) as unknown as CallRecord
}
