import type { Tx } from "../../db/Database.ts"
import type { PrivacyStore, Subject } from "../store.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

// Website events of the contact, the consent evidence they carried (text, form, IP, user agent) and their dedupe keys;
// the per-source delivery log keeps its counts but loses the IP and user agent of the requests that carried them.

/** The subject's stored website event ids. */
const eventIds = (tx: Tx, subject: Subject) => tx`
  SELECT id FROM website_events WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
    AND contact_id = ANY(${subject.contactIds as Array<string>}::uuid[])`

/**
 * The delivery log names a request's stored events in its results: those of the subject's events lose the request's IP
 * and user agent (how it was sent stays: status, counts). Runs before the events go (they are how it finds them).
 */
export const websiteDeliveryLogStore: PrivacyStore = {
  store: "website_deliveries",
  action: "anonymised",
  tables: ["website_deliveries"],
  holds: "each request of a website source: IP, user agent, origin, per-event results",
  retention: "14 days (purged by the source's delivery-log reads, src/website/sourceReads.ts)",
  erase: (tx, subject, limit) => counted(tx`
    UPDATE website_deliveries SET ip = NULL, user_agent = NULL
    WHERE id IN (
      SELECT d.id FROM website_deliveries d
      WHERE d.tenant_id = ${subject.scope.tenant_id} AND d.sandbox = ${subject.scope.sandbox}
        AND (d.ip IS NOT NULL OR d.user_agent IS NOT NULL) AND jsonb_typeof(d.results) = 'array'
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(d.results) r WHERE r->>'event_id' IN (SELECT id::text FROM (${eventIds(tx, subject)}) e))
      LIMIT ${limit})`),
  export: async (tx, subject) => tagged("website_deliveries", await tx`
    SELECT jsonb_build_object('source_id', d.source_id, 'status', d.status, 'ip', d.ip, 'user_agent', d.user_agent,
        'origin', d.origin, 'received_at', d.received_at) AS row
    FROM website_deliveries d
    WHERE d.tenant_id = ${subject.scope.tenant_id} AND d.sandbox = ${subject.scope.sandbox} AND jsonb_typeof(d.results) = 'array'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(d.results) r WHERE r->>'event_id' IN (SELECT id::text FROM (${eventIds(tx, subject)}) e))
    ORDER BY d.received_at`)
}

export const websiteEventsStore: PrivacyStore = {
  store: "website_events",
  action: "deleted",
  tables: ["website_event_keys", "website_consent_audit", "website_events"],
  holds: "website events of the contact (cart, session, payload), consent evidence (text, form, IP, user agent), dedupe keys",
  retention: "events and consent evidence kept (no expiry); dedupe keys 7 days (idempotency) or 60 s (natural key)",
  erase: (tx, subject, limit) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = subject.contactIds as Array<string>
    return inSteps(limit, [
      (b) => counted(tx`DELETE FROM website_event_keys WHERE (tenant_id, sandbox, dedupe_key) IN (
        SELECT tenant_id, sandbox, dedupe_key FROM website_event_keys
        WHERE tenant_id = ${t} AND sandbox = ${s} AND event_id IN (SELECT id FROM (${eventIds(tx, subject)}) e) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM website_consent_audit WHERE id IN (
        SELECT id FROM website_consent_audit WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM website_events WHERE id IN (SELECT id FROM (${eventIds(tx, subject)}) e LIMIT ${b})`)
    ])
  },
  export: async (tx, subject) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = subject.contactIds as Array<string>
    const [events, consents] = await Promise.all([
      tx`SELECT to_jsonb(w) - ${[...INTERNAL, "idempotency_key"]}::text[] AS row FROM website_events w
        WHERE w.tenant_id = ${t} AND w.sandbox = ${s} AND w.contact_id = ANY(${ids}::uuid[]) ORDER BY w.received_at, w.id`,
      tx`SELECT to_jsonb(a) - ${INTERNAL}::text[] AS row FROM website_consent_audit a
        WHERE a.tenant_id = ${t} AND a.sandbox = ${s} AND a.contact_id = ANY(${ids}::uuid[]) ORDER BY a.recorded_at, a.id`
    ])
    return [...tagged("website_events", events), ...tagged("website_consent_audit", consents)]
  }
}
