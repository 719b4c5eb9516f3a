import type { PrivacyStore } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

/**
 * Messaging: every message to or from the contact (addresses, subjects, bodies, template parameters, the WhatsApp
 * text the guest sent), its status history, its conversations, and the channel's suppressed addresses naming it.
 * Counts a broadcast or journey reports are read from these rows: they drop with them (aggregates keep no ids).
 */
export const messagesStore: PrivacyStore = {
  store: "messages",
  action: "deleted",
  tables: ["message_statuses", "messages", "conversations", "suppressions"],
  holds: "messages sent and received (addresses, subject, bodies, template parameters), their statuses, conversations, bounced addresses",
  retention: "kept (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => {
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = n.contactIds
    return inSteps(limit, [
      (b) => counted(tx`DELETE FROM message_statuses WHERE id IN (
        SELECT st.id FROM messages m JOIN message_statuses st ON st.message_id = m.id
        WHERE m.tenant_id = ${t} AND m.sandbox = ${s} AND m.contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM messages WHERE id IN (
        SELECT id FROM messages WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM conversations WHERE id IN (
        SELECT id FROM conversations WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM suppressions WHERE (tenant_id, sandbox, channel, address) IN (
        SELECT tenant_id, sandbox, channel, address FROM suppressions
        WHERE tenant_id = ${t} AND sandbox = ${s} AND address = ANY(${[...n.emails, ...n.addresses]}::text[]) LIMIT ${b})`)
    ])
  },
  export: async (tx, subject) => {
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    const [messages, conversations, suppressions] = await Promise.all([
      tx`SELECT (to_jsonb(m) - ${[...INTERNAL, "hold_namespace", "attempt_started_at", "attempts"]}::text[]) || jsonb_build_object('statuses',
          (SELECT coalesce(jsonb_agg(jsonb_build_object('status', st.status, 'error_code', st.error_code, 'occurred_at', st.occurred_at) ORDER BY st.id), '[]'::jsonb)
           FROM message_statuses st WHERE st.message_id = m.id)) AS row
        FROM messages m WHERE m.tenant_id = ${t} AND m.sandbox = ${s} AND m.contact_id = ANY(${n.contactIds}::uuid[])
        ORDER BY m.created_at, m.id`,
      tx`SELECT to_jsonb(c) - ${INTERNAL}::text[] AS row FROM conversations c
        WHERE c.tenant_id = ${t} AND c.sandbox = ${s} AND c.contact_id = ANY(${n.contactIds}::uuid[]) ORDER BY c.opened_at`,
      tx`SELECT to_jsonb(x) - ${[...INTERNAL, "message_id"]}::text[] AS row FROM suppressions x
        WHERE x.tenant_id = ${t} AND x.sandbox = ${s} AND x.address = ANY(${[...n.emails, ...n.addresses]}::text[])`
    ])
    return [...tagged("messages", messages), ...tagged("conversations", conversations), ...tagged("suppressions", suppressions)]
  }
}
