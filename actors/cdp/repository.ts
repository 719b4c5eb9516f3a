import { jsonb, type Tx, withRecords } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { TrackVisit } from "./protocol.ts"

// The visitor actor's rows: visitors and their current contact, sessions, events, identity events (checkout links: checkoutRepository.ts).

/** How far back a visitor's anonymous history is attached to the contact it is linked to. */
export const BACKFILL_DAYS = 30

/** The visitor's row (created when new), locked for this transaction; its current contact or null. */
export const touchVisitor = async (tx: Tx, scope: TenantScope, visitorId: string): Promise<string | null> => {
  const [row] = await tx`
    INSERT INTO cdp_visitors (tenant_id, sandbox, visitor_id) VALUES (${scope.tenant_id}, ${scope.sandbox}, ${visitorId})
    ON CONFLICT (tenant_id, sandbox, visitor_id) DO UPDATE SET last_seen = now()
    RETURNING contact_id`
  return (row?.contact_id as string | null | undefined) ?? null
}

/** A session seen again, or its first sighting with the device, UTM and referrer it arrived with. */
export const touchSession = (tx: Tx, scope: TenantScope, s: { session_id: string; visitor_id: string | null; device?: unknown; utm?: unknown; referrer?: string | null }) =>
  tx`
    INSERT INTO cdp_sessions (tenant_id, sandbox, session_id, visitor_id, device, utm, referrer)
    VALUES (${scope.tenant_id}, ${scope.sandbox}, ${s.session_id}, ${s.visitor_id}, ${jsonb(tx, s.device)}::jsonb, ${jsonb(tx, s.utm)}::jsonb, ${s.referrer ?? null})
    ON CONFLICT (tenant_id, sandbox, session_id) DO UPDATE SET last_seen = now(),
      visitor_id = coalesce(cdp_sessions.visitor_id, EXCLUDED.visitor_id),
      device = coalesce(cdp_sessions.device, EXCLUDED.device), utm = coalesce(cdp_sessions.utm, EXCLUDED.utm),
      referrer = coalesce(cdp_sessions.referrer, EXCLUDED.referrer)`

/**
 * The visit's events, with the visitor's current contact; one statement. An event already stored (the same dedupe
 * key for this visitor: a retried request) is skipped.
 */
export const insertEvents = async (tx: Tx, scope: TenantScope, visit: TrackVisit, contactId: string | null) => {
  await withRecords(tx, scope, `
    INSERT INTO cdp_events (tenant_id, sandbox, visitor_id, session_id, contact_id, type, url, title, data, device, utm, referrer, ts, dedupe_key)
    SELECT $1, $2, e.visitor_id, e.session_id, e.contact_id, e.type, e.url, e.title, e.data, e.device, e.utm, e.referrer, e.ts, e.dedupe_key
    FROM jsonb_to_recordset($3::jsonb) AS e(visitor_id text, session_id text, contact_id uuid, type text, url text, title text,
      data jsonb, device jsonb, utm jsonb, referrer text, ts timestamptz, dedupe_key text)
    ON CONFLICT (tenant_id, sandbox, visitor_id, dedupe_key) DO NOTHING`,
  visit.events.map((e) => ({
    visitor_id: visit.visitor_id, session_id: visit.session_id, contact_id: contactId, type: e.type, url: e.url, title: e.title,
    data: e.data, device: visit.device, utm: visit.utm, referrer: visit.referrer, ts: e.ts, dedupe_key: e.dedupe_key
  })))
}

export type LinkKind = "linked" | "already_linked" | "reassigned" | "checkout"

/**
 * Points the visitor at a contact and attaches its anonymous history of the last 30 days (events and sessions without
 * a contact) to it; another contact's earlier history stays with that contact. Kept as an identity event. Answers how
 * many events were attached.
 */
export const linkVisitor = async (
  tx: Tx, scope: TenantScope, l: { visitor_id: string; session_id?: string | undefined; contact_id: string; previous: string | null; kind: LinkKind }
): Promise<number> => {
  const [, events] = await Promise.all([
    tx`UPDATE cdp_visitors SET contact_id = ${l.contact_id}, linked_at = now()
       WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND visitor_id = ${l.visitor_id}`,
    tx`UPDATE cdp_events SET contact_id = ${l.contact_id}
       WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND visitor_id = ${l.visitor_id} AND contact_id IS NULL
         AND ts > now() - make_interval(days => ${BACKFILL_DAYS})`,
    tx`UPDATE cdp_sessions SET contact_id = ${l.contact_id}
       WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND visitor_id = ${l.visitor_id}
         AND (contact_id IS NULL ${l.session_id === undefined ? tx`` : tx`OR session_id = ${l.session_id}`})
         AND last_seen > now() - make_interval(days => ${BACKFILL_DAYS})`
  ])
  await recordIdentityEvent(tx, scope, { ...l, backfilled: events.count })
  return events.count
}

export const recordIdentityEvent = (
  tx: Tx, scope: TenantScope,
  e: { visitor_id?: string | undefined; session_id?: string | undefined; contact_id: string; previous: string | null; kind: LinkKind; backfilled: number }
) => tx`
  INSERT INTO cdp_identity_events (tenant_id, sandbox, visitor_id, session_id, contact_id, previous_contact_id, kind, backfilled_events)
  VALUES (${scope.tenant_id}, ${scope.sandbox}, ${e.visitor_id ?? null}, ${e.session_id ?? null}, ${e.contact_id}, ${e.previous},
    ${e.kind}, ${e.backfilled})`
