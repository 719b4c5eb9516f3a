import { type Tx, withRecords } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ConsentOutcome } from "./consent.ts"
import type { ApplyWebsiteEvent } from "./protocol.ts"

// The website actor's rows: dedupe keys, stored events, consent evidence.

export const IDEMPOTENCY_TTL_S = 7 * 86_400
export const NATURAL_TTL_S = 60

export interface Original {
  readonly event_id: string
  readonly contact: "matched" | "created"
  readonly contact_id: string
}

/** The live dedupe rows among these keys, with the stored event's contact. */
export const originalsOf = async (tx: Tx, scope: TenantScope, keys: ReadonlyArray<string>): Promise<Map<string, Original>> => {
  if (keys.length === 0) return new Map()
  const rows = await tx<Array<Original & { dedupe_key: string }>>`
    SELECT k.dedupe_key, k.event_id, k.contact, e.contact_id FROM website_event_keys k JOIN website_events e ON e.id = k.event_id
    WHERE k.tenant_id = ${scope.tenant_id} AND k.sandbox = ${scope.sandbox} AND k.dedupe_key = ANY(${keys as Array<string>}::text[])
      AND k.expires_at > now()`
  return new Map(rows.map((r) => [r.dedupe_key, { event_id: r.event_id, contact: r.contact, contact_id: r.contact_id }]))
}

/**
 * Claims the dedupe keys of the stored events, one statement: an expired row is taken over; a live one (another
 * group's event with the same natural key, claimed meanwhile) is left to its owner. Keys are distinct (the wave
 * answered a second claim of a key as a duplicate).
 */
export const claimKeys = async (
  tx: Tx, scope: TenantScope, keys: ReadonlyArray<{ key: string; ttl_s: number; event_id: string; contact: string }>
) => {
  if (keys.length === 0) return
  await withRecords(tx, scope, `
    INSERT INTO website_event_keys (tenant_id, sandbox, dedupe_key, event_id, contact, expires_at)
    SELECT $1, $2, k.key, k.event_id, k.contact, now() + make_interval(secs => k.ttl_s)
    FROM jsonb_to_recordset($3::jsonb) AS k(key text, ttl_s int, event_id uuid, contact text)
    ON CONFLICT (tenant_id, sandbox, dedupe_key) DO UPDATE
      SET event_id = EXCLUDED.event_id, contact = EXCLUDED.contact, expires_at = EXCLUDED.expires_at
      WHERE website_event_keys.expires_at <= now()`, keys.map((k) => ({ key: k.key, ttl_s: k.ttl_s, event_id: k.event_id, contact: k.contact })))
}

/**
 * Which (event, hotel) pairs an active journey listens to (rule 7): one it starts (for this hotel, or any hotel), or
 * one it ends (`stop_when` of an event-triggered journey, default checkout.completed): a run may be waiting for it.
 * Answered as a set of `event|hotel` (hotel `null` when none).
 */
export const listening = async (tx: Tx, scope: TenantScope, pairs: ReadonlyArray<{ event: string; hotel_id: string | null }>): Promise<Set<string>> => {
  const distinct = [...new Map(pairs.map((p) => [`${p.event}|${p.hotel_id}`, p])).values()]
  if (distinct.length === 0) return new Set()
  const rows = await withRecords(tx, scope, `
    SELECT p.event, p.hotel_id FROM jsonb_to_recordset($3::jsonb) AS p(event text, hotel_id uuid)
    WHERE EXISTS (
      SELECT 1 FROM journey_definitions d
      WHERE d.tenant_id = $1 AND d.sandbox = $2 AND d.status = 'active' AND d.trigger_event_type = p.event
        AND (d.hotel_ids = '{}' OR p.hotel_id = ANY(d.hotel_ids))
    ) OR EXISTS (
      SELECT 1 FROM journey_definitions d JOIN journey_versions v ON v.journey_id = d.id AND v.version = d.version
      WHERE d.tenant_id = $1 AND d.sandbox = $2 AND d.status = 'active' AND d.trigger_type = 'event'
        AND coalesce(v.definition->'trigger'->'stop_when', '["checkout.completed"]'::jsonb) ? p.event
    )`, distinct)
  return new Set(rows.map((r) => `${r.event as string}|${(r.hotel_id as string | null) ?? null}`))
}

export const storeEvents = async (
  tx: Tx, scope: TenantScope, events: ReadonlyArray<{ cmd: ApplyWebsiteEvent; contact_id: string }>
) => {
  if (events.length === 0) return
  await withRecords(tx, scope, `
    INSERT INTO website_events (id, tenant_id, sandbox, source_id, event, contact_id, hotel_id, cart_id, session_id,
      idempotency_key, occurred_at, payload)
    SELECT e.id, $1, $2, e.source_id, e.event, e.contact_id, e.hotel_id, e.payload->'context'->>'cart_id',
      e.payload->'context'->>'session_id', e.idempotency_key, e.occurred_at, e.payload
    FROM jsonb_to_recordset($3::jsonb) AS e(id uuid, source_id uuid, event text, contact_id uuid, hotel_id uuid,
      idempotency_key text, occurred_at timestamptz, payload jsonb)`,
  events.map(({ cmd, contact_id }) => ({
    id: cmd.event_id, source_id: cmd.source_id, event: cmd.event, contact_id, hotel_id: cmd.hotel_id,
    idempotency_key: cmd.idempotency_key ?? null, occurred_at: cmd.occurred_at, payload: cmd.data
  })))
}

/** The contacts among these who opted out of email marketing (no event re-subscribes them: rule 3). */
export const optedOutOf = async (tx: Tx, contactIds: ReadonlyArray<string>): Promise<Set<string>> => {
  if (contactIds.length === 0) return new Set()
  const rows = await tx`SELECT id FROM contacts WHERE id = ANY(${contactIds as Array<string>}::uuid[]) AND email_opted_out_at IS NOT NULL`
  return new Set(rows.map((r) => r.id as string))
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
