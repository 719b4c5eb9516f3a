import type { Tx } from "../../db/Database.ts"
import type { PrivacyStore, Subject } from "../store.ts"
import { hasWords, needlesOf } from "./needles.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

// The browser side (CDP): a visitor linked to the contact is the contact's, and so is everything it did before and
// after the link (page views, sessions with device and UTM, checkouts), and every identity event naming the contact.

/** The visitors currently linked to the subject's contacts: the anchor of the rest, deleted last. */
const visitors = (tx: Tx, subject: Subject) => tx`
  SELECT visitor_id FROM cdp_visitors WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
    AND contact_id = ANY(${subject.contactIds as Array<string>}::uuid[])`

export const cdpStore: PrivacyStore = {
  store: "cdp",
  action: "deleted",
  tables: ["cdp_events", "cdp_sessions", "cdp_checkouts", "cdp_identity_events", "cdp_visitors"],
  holds: "visitors linked to the contact, their browsing events (URL, title, device, UTM, referrer), sessions, checkouts, identity links",
  retention: "kept (no expiry): removed by an erasure, with every visitor id linked to the contact",
  erase: (tx, subject, limit) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = subject.contactIds as Array<string>
    const mine = (alias: string) => tx`(${tx(alias)}.contact_id = ANY(${ids}::uuid[]) OR ${tx(alias)}.visitor_id IN (${visitors(tx, subject)}))`
    return inSteps(limit, [
      (b) => counted(tx`DELETE FROM cdp_events WHERE id IN (
        SELECT x.id FROM cdp_events x WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND ${mine("x")} LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM cdp_sessions WHERE (tenant_id, sandbox, session_id) IN (
        SELECT x.tenant_id, x.sandbox, x.session_id FROM cdp_sessions x WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND ${mine("x")} LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM cdp_checkouts WHERE (tenant_id, sandbox, external_reservation_id) IN (
        SELECT x.tenant_id, x.sandbox, x.external_reservation_id FROM cdp_checkouts x
        WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND ${mine("x")} LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM cdp_identity_events WHERE id IN (
        SELECT x.id FROM cdp_identity_events x WHERE x.tenant_id = ${t} AND x.sandbox = ${s}
          AND (${mine("x")} OR x.previous_contact_id = ANY(${ids}::uuid[])) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM cdp_visitors WHERE (tenant_id, sandbox, visitor_id) IN (
        SELECT tenant_id, sandbox, visitor_id FROM cdp_visitors
        WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`)
    ])
  },
  export: async (tx, subject) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = subject.contactIds as Array<string>
    const mine = (alias: string) => tx`(${tx(alias)}.contact_id = ANY(${ids}::uuid[]) OR ${tx(alias)}.visitor_id IN (${visitors(tx, subject)}))`
    const [vs, sessions, events, checkouts, links] = await Promise.all([
      tx`SELECT to_jsonb(x) - ${INTERNAL}::text[] AS row FROM cdp_visitors x
        WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND x.contact_id = ANY(${ids}::uuid[]) ORDER BY x.first_seen`,
      tx`SELECT to_jsonb(x) - ${INTERNAL}::text[] AS row FROM cdp_sessions x WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND ${mine("x")}
        ORDER BY x.first_seen`,
      tx`SELECT to_jsonb(x) - ${[...INTERNAL, "dedupe_key"]}::text[] AS row FROM cdp_events x
        WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND ${mine("x")} ORDER BY x.ts, x.id`,
      tx`SELECT to_jsonb(x) - ${INTERNAL}::text[] AS row FROM cdp_checkouts x WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND ${mine("x")}
        ORDER BY x.at`,
      tx`SELECT to_jsonb(x) - ${[...INTERNAL, "previous_contact_id"]}::text[] AS row FROM cdp_identity_events x
        WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND x.contact_id = ANY(${ids}::uuid[]) ORDER BY x.at, x.id`
    ])
    return [...tagged("cdp_visitors", vs), ...tagged("cdp_sessions", sessions), ...tagged("cdp_events", events),
      ...tagged("cdp_checkouts", checkouts), ...tagged("cdp_identity_events", links)]
  }
}

/**
 * Bulk reservation jobs keep each item as sent (guests with names and contact details) for their outcome: an item
 * naming the subject keeps its outcome, its payload replaced by a marker. Found by text: a job's items are not linked
 * to contacts.
 */
export const cdpBatchItemsStore: PrivacyStore = {
  store: "cdp_batch_items",
  action: "anonymised",
  tables: ["cdp_batch_items"],
  holds: "reservations of bulk CDP jobs as sent (guests' names, emails, phones), with each item's outcome",
  retention: "kept with the job (no expiry): items naming the subject are blanked by an erasure",
  erase: async (tx, subject, limit) => {
    const n = needlesOf(subject)
    if (!hasWords(n)) return 0
    return counted(tx`
      UPDATE cdp_batch_items SET payload = '{"erased": true}'::jsonb, error = NULL
      WHERE (batch_id, idx) IN (
        SELECT i.batch_id, i.idx FROM cdp_batch_items i JOIN cdp_batches j ON j.id = i.batch_id
        WHERE j.tenant_id = ${subject.scope.tenant_id} AND j.sandbox = ${subject.scope.sandbox} AND i.tenant_id = ${subject.scope.tenant_id}
          AND (i.payload::text ILIKE ANY(${n.patterns}::text[]) OR coalesce(i.error::text, '') ILIKE ANY(${n.patterns}::text[]))
        LIMIT ${limit})`)
  },
  // An item is a whole reservation (other guests too): only its outcome and when its job ran are the subject's.
  export: async (tx, subject) => {
    const n = needlesOf(subject)
    if (!hasWords(n)) return []
    return tagged("cdp_batch_items", await tx`
      SELECT jsonb_build_object('batch_id', i.batch_id, 'index', i.idx, 'outcome', i.outcome, 'created_at', j.created_at) AS row
      FROM cdp_batch_items i JOIN cdp_batches j ON j.id = i.batch_id
      WHERE j.tenant_id = ${subject.scope.tenant_id} AND j.sandbox = ${subject.scope.sandbox} AND i.tenant_id = ${subject.scope.tenant_id}
        AND i.payload::text ILIKE ANY(${n.patterns}::text[])
      ORDER BY j.created_at, i.idx`)
  }
}
