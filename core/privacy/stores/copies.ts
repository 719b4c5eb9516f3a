import type { Tx } from "../../db/Database.ts"
import type { PrivacyStore, Subject } from "../store.ts"
import { copyNeedlesOf, memberIdsOf } from "./members.ts"
import { hasWords, type Needles } from "./needles.ts"
import { counted, inSteps, tagged } from "./rows.ts"

// Copies of what was said about the subject to partners and clients: webhook bodies (the delivery log's), stored
// answers of Idempotency-Key requests, and export documents of earlier requests on the same person.

/** Webhook bodies about the subject: recorded with its contact, or naming one of its ids or identifiers. */
const webhookBodies = (tx: Tx, subject: Subject, n: Needles) => tx`
    SELECT subscription_id, event_id FROM webhook_events WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
      AND (contact_id = ANY(${n.contactIds}::uuid[]) OR body ILIKE ANY(${n.patterns}::text[]))`

export const webhookCopiesStore: PrivacyStore = {
  store: "webhook_events",
  action: "deleted",
  tables: ["webhook_deliveries", "webhook_events", "webhook_sequences"],
  holds: "bodies emitted to partners (contact data, messages, loyalty), their delivery attempts, the per-object sequence of the contact and member",
  retention: "14 days (bodies and delivery log, removed in batches by the deliverer); sequences 30 idle days",
  erase: async (tx, subject, limit) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    const n = await copyNeedlesOf(tx, subject)
    const objects = [
      ...subject.contactIds.map((id) => `contact:${id}`),
      ...(await memberIdsOf(tx, subject)).map((id) => `loyalty_member:${id}`)
    ]
    return inSteps(limit, [
      (b) => counted(tx`DELETE FROM webhook_deliveries WHERE seq IN (
        SELECT d.seq FROM webhook_deliveries d JOIN (${webhookBodies(tx, subject, n)}) w ON w.subscription_id = d.subscription_id AND w.event_id = d.event_id
        LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM webhook_events WHERE (subscription_id, event_id) IN (SELECT * FROM (${webhookBodies(tx, subject, n)}) w LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM webhook_sequences WHERE (tenant_id, sandbox, object_key) IN (
        SELECT tenant_id, sandbox, object_key FROM webhook_sequences WHERE tenant_id = ${t} AND sandbox = ${s}
          AND object_key = ANY(${objects}::text[]) LIMIT ${b})`)
    ])
  },
  // What was sent to which partner endpoint about the subject; the body as sent when it is about the subject's contact
  // (a body that only mentions it, a reservation's say, may be about other guests too).
  export: async (tx, subject) => {
    const n = await copyNeedlesOf(tx, subject)
    return tagged("webhook_events", await tx`
      SELECT jsonb_build_object('event_id', e.event_id, 'event_type', e.event_type, 'subscription_id', e.subscription_id,
          'emitted_at', e.emitted_at,
          'body', CASE WHEN e.contact_id = ANY(${subject.contactIds as Array<string>}::uuid[]) THEN e.body::jsonb END) AS row
      FROM webhook_events e JOIN (${webhookBodies(tx, subject, n)}) w ON w.subscription_id = e.subscription_id AND w.event_id = e.event_id
      ORDER BY e.emitted_at`)
  }
}

/** A POST answered with an Idempotency-Key keeps its answer (a created contact, a reservation's guests) for a day. */
export const idempotencyKeysStore: PrivacyStore = {
  store: "idempotency_keys",
  action: "deleted",
  tables: ["idempotency_keys"],
  holds: "the stored answer of a POST sent with an Idempotency-Key (contact ids, contact details)",
  retention: "24 hours (swept by the ingress, src/http/idempotency/IdempotencyStore.ts)",
  erase: async (tx, subject, limit) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return 0
    return counted(tx`DELETE FROM idempotency_keys WHERE (tenant_id, sandbox, key) IN (
      SELECT tenant_id, sandbox, key FROM idempotency_keys WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
        AND (encode(body, 'escape') ILIKE ANY(${n.patterns}::text[]) OR headers::text ILIKE ANY(${n.patterns}::text[]))
      LIMIT ${limit})`)
  },
  // That an answer is kept, and until when; not the answer (a request's answer may name other guests).
  export: async (tx, subject) => {
    const n = await copyNeedlesOf(tx, subject)
    if (!hasWords(n)) return []
    return tagged("idempotency_keys", await tx`
      SELECT jsonb_build_object('status', status, 'created_at', created_at) AS row FROM idempotency_keys
      WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
        AND (encode(body, 'escape') ILIKE ANY(${n.patterns}::text[]) OR headers::text ILIKE ANY(${n.patterns}::text[]))
      ORDER BY created_at`)
  }
}

/** The subject's keyed hashes as hex (postgres.js sends no bytea arrays). */
const hexOf = (subject: Subject) => (subject.hashes ?? []).map((h) => Buffer.from(h).toString("hex"))

/**
 * Export documents of earlier requests on the same person (its contacts, or the keyed hashes of its identifiers),
 * kept until they expire: an erasure does not wait for that.
 */
export const privacyExportsStore: PrivacyStore = {
  store: "privacy_exports",
  action: "deleted",
  tables: ["privacy_exports"],
  holds: "export documents of earlier requests on the subject",
  retention: "7 days, then deleted by the privacy runner",
  erase: (tx, subject, limit) => counted(tx`DELETE FROM privacy_exports WHERE request_id IN (
    SELECT x.request_id FROM privacy_exports x JOIN privacy_requests r ON r.id = x.request_id
    WHERE x.tenant_id = ${subject.scope.tenant_id} AND x.sandbox = ${subject.scope.sandbox}
      AND r.tenant_id = ${subject.scope.tenant_id} AND r.sandbox = ${subject.scope.sandbox}
      AND (r.contact_ids && ${subject.contactIds as Array<string>}::uuid[]
        OR r.subject_hashes && ARRAY(SELECT decode(h, 'hex') FROM unnest(${hexOf(subject)}::text[]) h))
    LIMIT ${limit})`),
  export: async (tx, subject) => tagged("privacy_exports", await tx`
    SELECT jsonb_build_object('request_id', x.request_id, 'created_at', x.created_at, 'expires_at', x.expires_at) AS row
    FROM privacy_exports x JOIN privacy_requests r ON r.id = x.request_id
    WHERE x.tenant_id = ${subject.scope.tenant_id} AND x.sandbox = ${subject.scope.sandbox}
      AND r.tenant_id = ${subject.scope.tenant_id} AND r.sandbox = ${subject.scope.sandbox}
      AND (r.contact_ids && ${subject.contactIds as Array<string>}::uuid[]
        OR r.subject_hashes && ARRAY(SELECT decode(h, 'hex') FROM unnest(${hexOf(subject)}::text[]) h))`)
}
