import type { Tx } from "../../db/Database.ts"
import type { PrivacyStore, Subject } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

/** The subject's calls: linked to its contacts, or from or to one of its numbers (a call not yet linked). */
const calls = (tx: Tx, subject: Subject) => {
  const n = needlesOf(subject)
  return tx`
    SELECT id, provider, call_id FROM calls WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
      AND (contact_id = ANY(${n.contactIds}::uuid[]) OR from_number = ANY(${n.phones}::text[]) OR to_number = ANY(${n.phones}::text[]))`
}

/** Telephony: call records (numbers, caller, transcript, summary, recording link), their streamed events, click-to-call requests. */
export const callsStore: PrivacyStore = {
  store: "calls",
  action: "deleted",
  tables: ["call_events", "call_dial_requests", "calls"],
  holds: "calls (numbers, caller name and email, transcript, summary, recording URL), their provider events, click-to-call requests",
  retention: "kept (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => {
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    return inSteps(limit, [
      // call_events carry no mode: their call's row tells it.
      (b) => counted(tx`DELETE FROM call_events WHERE id IN (
        SELECT e.id FROM call_events e JOIN (${calls(tx, subject)}) k ON k.provider = e.provider AND k.call_id = e.call_id
        WHERE e.tenant_id = ${t} LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM call_dial_requests WHERE id IN (
        SELECT id FROM call_dial_requests WHERE tenant_id = ${t} AND sandbox = ${s}
          AND (contact_id = ANY(${n.contactIds}::uuid[]) OR to_number = ANY(${n.phones}::text[])) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM calls WHERE id IN (SELECT id FROM (${calls(tx, subject)}) k LIMIT ${b})`)
    ])
  },
  export: async (tx, subject) => {
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    const [records, dials] = await Promise.all([
      tx`SELECT to_jsonb(c) - ${INTERNAL}::text[] AS row FROM calls c WHERE c.id IN (SELECT id FROM (${calls(tx, subject)}) k)
        ORDER BY coalesce(c.started_at, c.created_at), c.id`,
      tx`SELECT to_jsonb(d) - ${[...INTERNAL, "requested_by"]}::text[] AS row FROM call_dial_requests d
        WHERE d.tenant_id = ${t} AND d.sandbox = ${s} AND (d.contact_id = ANY(${n.contactIds}::uuid[]) OR d.to_number = ANY(${n.phones}::text[]))
        ORDER BY d.created_at`
    ])
    return [...tagged("calls", records), ...tagged("call_dial_requests", dials)]
  }
}
