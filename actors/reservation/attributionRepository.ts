import { type AttributionRow, toAttribution } from "../../core/b2b/attribution.ts"
import { jsonb, PREPARED, type Tx } from "../../core/db/Database.ts"
import { FREE_MAIL_DOMAINS } from "../../core/normalise/b2b.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Attribution } from "../../schemas/b2b.ts"
import type { Candidate } from "./attribution.ts"

// B2B attribution of reservations, set-based: one statement decides for every reservation of a wave.

export interface ToAttribute {
  readonly reservation_id: string
  readonly candidates: ReadonlyArray<Candidate>
  /** Drop a manual decision and decide by the rules (otherwise a manual decision is kept). */
  readonly reset: boolean
}

/** An attribution that changed: what it is now, and what it was (null: there was none). */
export interface AttributionChange {
  readonly reservation_id: string
  readonly attribution: Attribution
  readonly previous: Attribution | null
}

/**
 * Decides, writes and returns the attributions that changed, in one statement for the whole wave (its text is fixed:
 * one prepared plan). Per reservation, first match wins over its candidates in order; for each candidate a
 * registration at the reservation's hotel before a chain-wide one, valid on the booking date (else the PMS's creation
 * date, else the day the reservation was first stored). Without a match, the holder's email domain (else the first
 * guest's) registered on exactly one account, never a free-mail domain, is stored as a suggestion only. A manual
 * decision is kept unless `reset`. A row is kept only when there is something to say.
 */
export const attributeReservations = async (tx: Tx, scope: TenantScope, items: ReadonlyArray<ToAttribute>): Promise<Array<AttributionChange>> => {
  if (items.length === 0) return []
  // Every access per reservation is a LATERAL or correlated lookup by key (an index probe each): the planner cannot
  // estimate the rows of jsonb_to_recordset, and given joins it scanned all of a tenant's codes, reservations (through
  // the row-level-security predicate) or attributions per wave. `LIMIT 1` keeps a LATERAL from being pulled up into a
  // join; a scalar subquery is never turned into a hashed scan.
  const rows = await tx.unsafe(
    `WITH next AS (
       SELECT s.reservation_id, m.account_id, m.rule, m.matched, m.deal_id, g.account_id AS suggestion_account_id,
         g.domain AS suggestion_domain
       FROM jsonb_to_recordset($3::jsonb) AS s(reservation_id uuid, candidates jsonb, reset boolean)
       CROSS JOIN LATERAL (
         SELECT res.hotel_id,
           coalesce(res.booking_date, (res.external_created_at AT TIME ZONE 'UTC')::date, res.created_at::date) AS booked_on
         FROM reservations res WHERE res.id = s.reservation_id LIMIT 1) r
       LEFT JOIN LATERAL (
         SELECT k.account_id, c.rule, k.display AS matched, k.deal_id
         FROM jsonb_to_recordset(s.candidates) AS c(kind text, code text, rule text, ord integer)
         CROSS JOIN LATERAL (
           SELECT k.account_id, k.display, k.deal_id FROM b2b_codes k
           WHERE k.tenant_id = $1 AND k.sandbox = $2 AND k.kind = c.kind AND k.code = c.code
             AND (k.hotel_id IS NULL OR k.hotel_id = r.hotel_id)
             AND (k.valid_from IS NULL OR k.valid_from <= r.booked_on) AND (k.valid_to IS NULL OR r.booked_on <= k.valid_to)
           ORDER BY k.hotel_id IS NULL LIMIT 1) k
         ORDER BY c.ord LIMIT 1) m ON true
       LEFT JOIN LATERAL (
         SELECT (array_agg(a.id))[1] AS account_id, min(h.domain) AS domain
         FROM (
           SELECT split_part(g.email, '@', 2) AS domain FROM reservation_guests g
           WHERE g.reservation_id = s.reservation_id AND g.email IS NOT NULL ORDER BY g.is_holder DESC, g.position LIMIT 1) h
         JOIN b2b_accounts a ON a.tenant_id = $1 AND a.sandbox = $2 AND a.email_domains @> ARRAY[h.domain]
         WHERE m.account_id IS NULL AND h.domain <> ALL($4::text[])
         HAVING count(*) = 1) g ON true
       -- A tenant (and mode) without accounts has nothing to attribute to and, accounts never being deleted, no
       -- automatic attribution to undo: its waves skip the lookups (only a reset still looks).
       WHERE (s.reset OR EXISTS (SELECT 1 FROM b2b_accounts x WHERE x.tenant_id = $1 AND x.sandbox = $2))
         AND (s.reset OR NOT coalesce((SELECT p.manual FROM b2b_attributions p WHERE p.reservation_id = s.reservation_id), false))
     ), upserted AS (
       INSERT INTO b2b_attributions (reservation_id, tenant_id, sandbox, account_id, rule, matched, deal_id,
         suggestion_account_id, suggestion_domain, manual, decided_at)
       SELECT n.reservation_id, $1, $2, n.account_id, n.rule, n.matched, n.deal_id, n.suggestion_account_id,
         n.suggestion_domain, false, now()
       FROM next n WHERE n.account_id IS NOT NULL OR n.suggestion_account_id IS NOT NULL
       ON CONFLICT (reservation_id) DO UPDATE SET account_id = EXCLUDED.account_id, rule = EXCLUDED.rule,
         matched = EXCLUDED.matched, deal_id = EXCLUDED.deal_id, suggestion_account_id = EXCLUDED.suggestion_account_id,
         suggestion_domain = EXCLUDED.suggestion_domain, manual = false, decided_at = now()
       WHERE (b2b_attributions.account_id, b2b_attributions.rule, b2b_attributions.matched, b2b_attributions.deal_id,
           b2b_attributions.suggestion_account_id, b2b_attributions.suggestion_domain, b2b_attributions.manual)
         IS DISTINCT FROM (EXCLUDED.account_id, EXCLUDED.rule, EXCLUDED.matched, EXCLUDED.deal_id,
           EXCLUDED.suggestion_account_id, EXCLUDED.suggestion_domain, false)
       RETURNING reservation_id, account_id, rule, matched, deal_id, suggestion_account_id, suggestion_domain, manual, decided_at
     ), removed AS (
       DELETE FROM b2b_attributions t USING next n
       WHERE t.reservation_id = n.reservation_id AND n.account_id IS NULL AND n.suggestion_account_id IS NULL
       RETURNING t.reservation_id, NULL::uuid AS account_id, NULL::text AS rule, NULL::text AS matched, NULL::uuid AS deal_id,
         NULL::uuid AS suggestion_account_id, NULL::text AS suggestion_domain, false AS manual, NULL::timestamptz AS decided_at
     ), changed AS (
       SELECT * FROM upserted UNION ALL SELECT * FROM removed
     )
     -- The statement's snapshot predates its own writes: b2b_attributions read here is the previous attribution.
     SELECT c.*, (SELECT a.path::text[] FROM b2b_accounts a WHERE a.id = c.account_id) AS path,
       (SELECT (to_jsonb(t) - 'tenant_id' - 'sandbox')
           || jsonb_build_object('path', (SELECT to_jsonb(a.path) FROM b2b_accounts a WHERE a.id = t.account_id))
        FROM b2b_attributions t WHERE t.reservation_id = c.reservation_id) AS previous
     FROM changed c`,
    [scope.tenant_id, scope.sandbox, jsonb(tx, items) as never, [...FREE_MAIL_DOMAINS] as never], PREPARED
  )
  return rows.map((row) => ({
    reservation_id: row.reservation_id as string,
    attribution: toAttribution(row as unknown as AttributionRow),
    previous: row.previous === null ? null : toAttribution(row.previous as AttributionRow)
  }))
}

/**
 * A manual decision (account or none), kept through later upserts; returns the change, or undefined when the
 * reservation was already decided so by hand.
 */
export const attributeManually = async (tx: Tx, scope: TenantScope, reservationId: string, accountId: string | null): Promise<AttributionChange | undefined> => {
  const [row] = await tx.unsafe(
    `WITH prev AS (
       SELECT t.*, (SELECT a.path::text[] FROM b2b_accounts a WHERE a.id = t.account_id) AS path
       FROM b2b_attributions t WHERE t.reservation_id = $3
     ), upserted AS (
       INSERT INTO b2b_attributions (reservation_id, tenant_id, sandbox, account_id, rule, manual, decided_at)
       VALUES ($3, $1, $2, $4, 'manual', true, now())
       ON CONFLICT (reservation_id) DO UPDATE SET account_id = EXCLUDED.account_id, rule = 'manual', matched = NULL,
         deal_id = NULL, suggestion_account_id = NULL, suggestion_domain = NULL, manual = true, decided_at = now()
       WHERE NOT b2b_attributions.manual OR b2b_attributions.account_id IS DISTINCT FROM EXCLUDED.account_id
       RETURNING *
     )
     SELECT u.account_id, u.rule, u.matched, u.deal_id, u.suggestion_account_id, u.suggestion_domain, u.manual,
       u.decided_at, (SELECT a.path::text[] FROM b2b_accounts a WHERE a.id = u.account_id) AS path,
       (SELECT to_jsonb(p) - 'tenant_id' - 'sandbox' FROM prev p) AS previous
     FROM upserted u`,
    [scope.tenant_id, scope.sandbox, reservationId, accountId], PREPARED
  )
  if (!row) return undefined
  return {
    reservation_id: reservationId,
    attribution: toAttribution(row as unknown as AttributionRow),
    previous: row.previous == null ? null : toAttribution(row.previous as AttributionRow)
  }
}

export const accountExists = async (tx: Tx, scope: TenantScope, accountId: string): Promise<boolean> => {
  const rows = await tx`SELECT 1 FROM b2b_accounts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${accountId}`
  return rows.length > 0
}
