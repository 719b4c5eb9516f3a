import { type Tx, withRecords } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { BACKFILL_DAYS } from "./repository.ts"

// The checkout links of a wave, set-based: a few statements for any number of reservations.

export interface CheckoutRow {
  readonly external_reservation_id: string
  readonly reservation_id: string
  readonly contact_id: string
  readonly visitor_id: string | null
  readonly session_id: string | null
  readonly cart_id: string | null
  readonly utm: unknown
  readonly event_id: string
}

/** Claims each reservation's one link (external ids distinct); answers the ids claimed now. */
export const claimCheckouts = async (tx: Tx, scope: TenantScope, rows: ReadonlyArray<CheckoutRow>): Promise<Set<string>> => {
  if (rows.length === 0) return new Set()
  const claimed = await withRecords(tx, scope, `
    INSERT INTO cdp_checkouts (tenant_id, sandbox, external_reservation_id, reservation_id, contact_id, visitor_id, session_id, cart_id, utm, event_id)
    SELECT $1, $2, c.external_reservation_id, c.reservation_id, c.contact_id, c.visitor_id, c.session_id, c.cart_id, c.utm, c.event_id
    FROM jsonb_to_recordset($3::jsonb) AS c(external_reservation_id text, reservation_id uuid, contact_id uuid, visitor_id text,
      session_id text, cart_id text, utm jsonb, event_id uuid)
    ON CONFLICT (tenant_id, sandbox, external_reservation_id) DO NOTHING RETURNING external_reservation_id`, rows)
  return new Set(claimed.map((r) => r.external_reservation_id as string))
}

/** Points each visitor (distinct) at its booker; answers each visitor's previous contact (null when none). */
export const pointVisitors = async (tx: Tx, scope: TenantScope, links: ReadonlyArray<{ visitor_id: string; contact_id: string }>) => {
  if (links.length === 0) return new Map<string, string | null>()
  const rows = await withRecords(tx, scope, `
    WITH v AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS v(visitor_id text, contact_id uuid)),
    prev AS (SELECT p.visitor_id, p.contact_id FROM cdp_visitors p JOIN v USING (visitor_id) WHERE p.tenant_id = $1 AND p.sandbox = $2),
    up AS (
      INSERT INTO cdp_visitors (tenant_id, sandbox, visitor_id, contact_id, linked_at) SELECT $1, $2, visitor_id, contact_id, now() FROM v
      ON CONFLICT (tenant_id, sandbox, visitor_id) DO UPDATE SET contact_id = EXCLUDED.contact_id, linked_at = now(), last_seen = now()
      RETURNING visitor_id)
    SELECT v.visitor_id, prev.contact_id AS previous FROM v LEFT JOIN prev USING (visitor_id)`, links)
  return new Map(rows.map((r) => [r.visitor_id as string, (r.previous as string | null) ?? null]))
}

/** The sessions (distinct) go to the booker and the reservation; a new one is created with its visitor and UTM. */
export const linkSessions = (tx: Tx, scope: TenantScope, rows: ReadonlyArray<{ session_id: string; visitor_id: string | null; contact_id: string; reservation_id: string; utm: unknown }>) =>
  rows.length === 0 ? Promise.resolve() : withRecords(tx, scope, `
    INSERT INTO cdp_sessions (tenant_id, sandbox, session_id, visitor_id, contact_id, reservation_id, utm)
    SELECT $1, $2, s.session_id, s.visitor_id, s.contact_id, s.reservation_id, s.utm
    FROM jsonb_to_recordset($3::jsonb) AS s(session_id text, visitor_id text, contact_id uuid, reservation_id uuid, utm jsonb)
    ON CONFLICT (tenant_id, sandbox, session_id) DO UPDATE SET contact_id = EXCLUDED.contact_id, reservation_id = EXCLUDED.reservation_id,
      visitor_id = coalesce(cdp_sessions.visitor_id, EXCLUDED.visitor_id), utm = coalesce(cdp_sessions.utm, EXCLUDED.utm), last_seen = now()`, rows)

/**
 * The visitors' anonymous events and sessions of the last 30 days go to their booker; answers events attached per
 * visitor. The visitors also come as an array (`= ANY`): the planner then reads the visitor index instead of joining
 * the whole events table with a record set it cannot size.
 */
export const backfillVisitors = async (tx: Tx, scope: TenantScope, links: ReadonlyArray<{ visitor_id: string; contact_id: string }>) => {
  if (links.length === 0) return new Map<string, number>()
  const visitors = links.map((l) => l.visitor_id)
  const contacts = links.map((l) => l.contact_id)
  const [events] = await Promise.all([
    tx`UPDATE cdp_events e SET contact_id = v.contact_id
       FROM (SELECT unnest(${visitors}::text[]) AS visitor_id, unnest(${contacts}::uuid[]) AS contact_id) v
       WHERE e.tenant_id = ${scope.tenant_id} AND e.sandbox = ${scope.sandbox} AND e.visitor_id = ANY(${visitors}::text[])
         AND e.visitor_id = v.visitor_id AND e.contact_id IS NULL AND e.ts > now() - make_interval(days => ${BACKFILL_DAYS})
       RETURNING e.visitor_id`,
    tx`UPDATE cdp_sessions s SET contact_id = v.contact_id
       FROM (SELECT unnest(${visitors}::text[]) AS visitor_id, unnest(${contacts}::uuid[]) AS contact_id) v
       WHERE s.tenant_id = ${scope.tenant_id} AND s.sandbox = ${scope.sandbox} AND s.visitor_id = ANY(${visitors}::text[])
         AND s.visitor_id = v.visitor_id AND s.contact_id IS NULL AND s.last_seen > now() - make_interval(days => ${BACKFILL_DAYS})`
  ])
  const counts = new Map<string, number>()
  for (const r of events) counts.set(r.visitor_id as string, (counts.get(r.visitor_id as string) ?? 0) + 1)
  return counts
}

export const recordCheckoutLinks = (tx: Tx, scope: TenantScope, rows: ReadonlyArray<{ visitor_id: string | null; session_id: string | null; contact_id: string; previous: string | null; backfilled: number }>) =>
  rows.length === 0 ? Promise.resolve() : withRecords(tx, scope, `
    INSERT INTO cdp_identity_events (tenant_id, sandbox, visitor_id, session_id, contact_id, previous_contact_id, kind, backfilled_events)
    SELECT $1, $2, r.visitor_id, r.session_id, r.contact_id, r.previous, 'checkout', r.backfilled
    FROM jsonb_to_recordset($3::jsonb) AS r(visitor_id text, session_id text, contact_id uuid, previous uuid, backfilled int)`, rows)

/** How many sessions of each visit (its visitor's, or the session named) belong to its booker, in input order. */
export const sessionCounts = async (tx: Tx, scope: TenantScope, rows: ReadonlyArray<{ contact_id: string; visitor_id: string | null; session_id: string | null }>) => {
  if (rows.length === 0) return []
  const visitors = rows.flatMap((r) => r.visitor_id ?? [])
  const sessionIds = rows.flatMap((r) => r.session_id ?? [])
  // One indexed read of the visits' sessions (visitor index OR session key), counted here.
  const found = await tx<Array<{ session_id: string; visitor_id: string | null; contact_id: string | null }>>`
    SELECT session_id, visitor_id, contact_id FROM cdp_sessions
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      AND (visitor_id = ANY(${visitors}::text[]) OR session_id = ANY(${sessionIds}::text[]))`
  return rows.map((r) => found.filter((s) => s.contact_id === r.contact_id &&
    ((r.visitor_id !== null && s.visitor_id === r.visitor_id) || (r.session_id !== null && s.session_id === r.session_id))).length)
}
