import { jsonb, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { CallerFill } from "./protocol.ts"
import type { CallRow } from "./state.ts"

const ts = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

export const findCallForUpdate = async (tx: Tx, tenantId: string, provider: string, callId: string): Promise<CallRow | undefined> => {
  const [row] = await tx`
    SELECT id, direction, from_number, to_number, contact_id, status, started_at, answered_at, ended_at, answered,
      duration_seconds, agent, caller, outcome, outcome_raw, recording_url, transcript, transcript_truncated,
      transcript_received_at, summary, language, metadata, version
    FROM calls WHERE tenant_id = ${tenantId} AND provider = ${provider} AND call_id = ${callId} FOR UPDATE`
  if (!row) return undefined
  return {
    ...row,
    started_at: ts(row.started_at), answered_at: ts(row.answered_at), ended_at: ts(row.ended_at),
    transcript_received_at: ts(row.transcript_received_at)
  } as unknown as CallRow
}

export const saveCall = async (tx: Tx, scope: TenantScope, provider: string, callId: string, c: CallRow): Promise<void> => {
  await tx`
    INSERT INTO calls (id, tenant_id, sandbox, provider, call_id, direction, from_number, to_number, contact_id, status,
      started_at, answered_at, ended_at, answered, duration_seconds, agent, caller, outcome, outcome_raw, recording_url,
      transcript, transcript_truncated, transcript_received_at, summary, language, metadata, version)
    VALUES (${c.id}, ${scope.tenant_id}, ${scope.sandbox}, ${provider}, ${callId}, ${c.direction}, ${c.from_number},
      ${c.to_number}, ${c.contact_id}, ${c.status}, ${c.started_at}, ${c.answered_at}, ${c.ended_at}, ${c.answered},
      ${c.duration_seconds}, ${jsonb(tx, c.agent)}, ${jsonb(tx, c.caller)}, ${c.outcome}, ${c.outcome_raw},
      ${c.recording_url}, ${jsonb(tx, c.transcript)}, ${c.transcript_truncated}, ${c.transcript_received_at}, ${c.summary},
      ${c.language}, ${jsonb(tx, c.metadata)}, ${c.version})
    ON CONFLICT (tenant_id, provider, call_id) DO UPDATE SET
      direction = EXCLUDED.direction, from_number = EXCLUDED.from_number, to_number = EXCLUDED.to_number,
      contact_id = EXCLUDED.contact_id, status = EXCLUDED.status, started_at = EXCLUDED.started_at,
      answered_at = EXCLUDED.answered_at, ended_at = EXCLUDED.ended_at, answered = EXCLUDED.answered,
      duration_seconds = EXCLUDED.duration_seconds, agent = EXCLUDED.agent, caller = EXCLUDED.caller,
      outcome = EXCLUDED.outcome, outcome_raw = EXCLUDED.outcome_raw, recording_url = EXCLUDED.recording_url,
      transcript = EXCLUDED.transcript, transcript_truncated = EXCLUDED.transcript_truncated,
      transcript_received_at = EXCLUDED.transcript_received_at, summary = EXCLUDED.summary, language = EXCLUDED.language,
      metadata = EXCLUDED.metadata, version = EXCLUDED.version, updated_at = now()`
}

export const logCallEvent = (tx: Tx, tenantId: string, provider: string, callId: string, type: string, payload: unknown, envelopeId: string) =>
  tx`
    INSERT INTO call_events (tenant_id, provider, call_id, event_type, payload, envelope_id)
    VALUES (${tenantId}, ${provider}, ${callId}, ${type}, ${jsonb(tx, payload)}, ${envelopeId})`

/**
 * What the caller said fills only blank fields of the contact: a name never overwrites a stored one, an email is
 * set only when the contact has none and no other contact owns it.
 */
export const fillBlankContactFields = async (tx: Tx, scope: TenantScope, contactId: string, caller: CallerFill): Promise<boolean> => {
  const rows = await tx`
    UPDATE contacts c SET
      first_name = coalesce(c.first_name, ${caller.first_name ?? null}),
      last_name = coalesce(c.last_name, ${caller.last_name ?? null}),
      email = CASE WHEN c.email IS NULL AND ${caller.email ?? null}::text IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM contacts o WHERE o.tenant_id = ${scope.tenant_id} AND o.sandbox = ${scope.sandbox} AND o.email = ${caller.email ?? null})
        THEN ${caller.email ?? null} ELSE c.email END,
      updated_at = now()
    WHERE c.id = ${contactId}
      AND ((c.first_name IS NULL AND ${caller.first_name ?? null}::text IS NOT NULL)
        OR (c.last_name IS NULL AND ${caller.last_name ?? null}::text IS NOT NULL)
        OR (c.email IS NULL AND ${caller.email ?? null}::text IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM contacts o WHERE o.tenant_id = ${scope.tenant_id} AND o.sandbox = ${scope.sandbox} AND o.email = ${caller.email ?? null})))
    RETURNING c.id`
  return rows.length > 0
}
