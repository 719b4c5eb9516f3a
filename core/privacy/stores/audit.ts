import type { PrivacyStore } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, tagged } from "./rows.ts"

/**
 * The audit log's entries about the subject's contacts (a staff member opened the contact; an action named it). Anonymised,
 * not deleted: an entry is the account's record of what its people did (who looked at guests, who resent what), which
 * must outlive the guest; without the contact id it says only that a staff member opened some contact then.
 */
export const auditStore: PrivacyStore = {
  store: "audit_log",
  action: "anonymised",
  tables: ["audit_log"],
  holds: "audit entries naming the contact: which staff member or key opened it or acted on it, and when",
  retention: "kept (the account's record of its staff's actions); an erasure clears the contact id",
  erase: (tx, subject, limit) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    return counted(tx`UPDATE audit_log SET contact_id = NULL WHERE id IN (
      SELECT id FROM audit_log WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${needlesOf(subject).contactIds}::uuid[]) LIMIT ${limit})`)
  },
  // When and what, and whether a person or an integration: the subject learns who accessed their data by kind.
  export: async (tx, subject) => tagged("audit_log", await tx`
    SELECT jsonb_build_object('at', a.at, 'action', a.action, 'actor_type', a.actor_type, 'contact_id', a.contact_id) AS row
    FROM audit_log a WHERE a.tenant_id = ${subject.scope.tenant_id} AND a.sandbox = ${subject.scope.sandbox}
      AND a.contact_id = ANY(${needlesOf(subject).contactIds}::uuid[]) ORDER BY a.at, a.id`)
}
