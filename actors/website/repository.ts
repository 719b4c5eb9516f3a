import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ConsentOutcome } from "./consent.ts"
import type { ApplyWebsiteEvent } from "./protocol.ts"

// The website actor's rows: dedupe keys, stored events, consent evidence.

export const IDEMPOTENCY_TTL_S = 7 * 86_400
export const NATURAL_TTL_S = 60

export interface Original {
  readonly event_id: string
  readonly contact: "matched" | "created"
}

/** The live dedupe row of any of these keys (idempotency key first). */
export const originalOf = async (tx: Tx, scope: TenantScope, keys: ReadonlyArray<string>): Promise<Original | undefined> => {
  if (keys.length === 0) return undefined
  const rows = await tx<Array<Original & { dedupe_key: string }>>`
    SELECT dedupe_key, event_id, contact FROM website_event_keys
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND dedupe_key = ANY(${keys as Array<string>}::text[])
      AND expires_at > now()`
  return keys.map((k) => rows.find((r) => r.dedupe_key === k)).find((r) => r !== undefined)
}

/**
 * Claims the dedupe keys for this event: an expired row is taken over; a live one (another actor's event with the
 * same natural key, claimed meanwhile) is left to its owner.
 */
export const claimKeys = async (
  tx: Tx, scope: TenantScope, keys: ReadonlyArray<{ key: string; ttl_s: number }>, eventId: string, contact: string
) => {
  for (const k of keys) {
    await tx`
      INSERT INTO website_event_keys (tenant_id, sandbox, dedupe_key, event_id, contact, expires_at)
      VALUES (${scope.tenant_id}, ${scope.sandbox}, ${k.key}, ${eventId}, ${contact}, now() + make_interval(secs => ${k.ttl_s}))
      ON CONFLICT (tenant_id, sandbox, dedupe_key) DO UPDATE
        SET event_id = EXCLUDED.event_id, contact = EXCLUDED.contact, expires_at = EXCLUDED.expires_at
        WHERE website_event_keys.expires_at <= now()`
  }
}

/**
 * Whether an active journey listens to this event (rule 7): one it starts (for this hotel, or any hotel), or one it
 * ends (`stop_when` of an event-triggered journey, default checkout.completed): a run may be waiting for it.
 */
export const journeyListens = async (tx: Tx, scope: TenantScope, event: string, hotelId: string | null): Promise<boolean> => {
  const [row] = await tx`
    SELECT EXISTS (
      SELECT 1 FROM journey_definitions d
      WHERE d.tenant_id = ${scope.tenant_id} AND d.sandbox = ${scope.sandbox} AND d.status = 'active'
        AND d.trigger_event_type = ${event} AND (d.hotel_ids = '{}' OR ${hotelId}::uuid = ANY(d.hotel_ids))
    ) OR EXISTS (
      SELECT 1 FROM journey_definitions d JOIN journey_versions v ON v.journey_id = d.id AND v.version = d.version
      WHERE d.tenant_id = ${scope.tenant_id} AND d.sandbox = ${scope.sandbox} AND d.status = 'active' AND d.trigger_type = 'event'
        AND coalesce(v.definition->'trigger'->'stop_when', '["checkout.completed"]'::jsonb) ? ${event}
    ) AS listens`
  return row!.listens as boolean
}

export const storeEvent = (tx: Tx, scope: TenantScope, cmd: ApplyWebsiteEvent, contactId: string) => {
  const ctx = (cmd.data["context"] ?? {}) as Record<string, unknown>
  return tx`
    INSERT INTO website_events (id, tenant_id, sandbox, source_id, event, contact_id, hotel_id, cart_id, session_id,
      idempotency_key, occurred_at, payload)
    VALUES (${cmd.event_id}, ${scope.tenant_id}, ${scope.sandbox}, ${cmd.source_id}, ${cmd.event}, ${contactId},
      ${cmd.hotel_id}, ${(ctx["cart_id"] as string | undefined) ?? null}, ${(ctx["session_id"] as string | undefined) ?? null},
      ${cmd.idempotency_key ?? null}, ${cmd.occurred_at}, ${tx.json(cmd.data as never)})`
}

export const optedOut = async (tx: Tx, contactId: string): Promise<boolean> => {
  const [row] = await tx`SELECT email_opted_out_at IS NOT NULL AS out FROM contacts WHERE id = ${contactId}`
  return row?.out === true
}

/** The evidence of a consent claim and its outcome; an honoured one also sets the contact's email consent. */
export const recordConsent = async (
  tx: Tx, scope: TenantScope, cmd: ApplyWebsiteEvent, contactId: string, outcome: ConsentOutcome
) => {
  const c = cmd.consent!
  await tx`
    INSERT INTO website_consent_audit (tenant_id, sandbox, contact_id, source_id, event_id, granted, outcome, text,
      captured_at, language, form_id, ip, user_agent)
    VALUES (${scope.tenant_id}, ${scope.sandbox}, ${contactId}, ${cmd.source_id}, ${cmd.event_id}, ${c.email_marketing},
      ${outcome}, ${c.text ?? null}, ${c.captured_at ?? null}, ${c.language ?? null}, ${c.form_id ?? null}, ${cmd.ip},
      ${cmd.user_agent})`
  if (outcome !== "honoured") return
  await tx`UPDATE contacts SET email_consent = true, updated_at = now() WHERE id = ${contactId} AND email_opted_out_at IS NULL`
  await tx`
    INSERT INTO consent_records (contact_id, channel, granted, source, envelope_id, captured_at, tenant_id, sandbox)
    VALUES (${contactId}, 'email', true, ${`website:${cmd.source_id}`}, ${cmd.event_id}, ${c.captured_at!}, ${scope.tenant_id}, ${scope.sandbox})`
}
