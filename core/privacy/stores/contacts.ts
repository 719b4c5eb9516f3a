import type { PrivacyStore } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

/**
 * The contact itself and what hangs on it alone: consent records (the evidence of each claim, IP and user agent of a
 * newsletter confirmation), identity conflicts naming it on either side (their phone and email are the claim's), the
 * hotels it stayed at, and the row (profile, custom field values, tags). Last of the registry: every other store's
 * rows point at the contact.
 */
export const contactsStore: PrivacyStore = {
  store: "contacts",
  action: "deleted",
  tables: ["consent_records", "identity_conflicts", "contact_hotels", "contacts"],
  holds: "profile (names, phone, email, date of birth, document, address, language), custom field values, tags, consent history with IP and user agent, identity conflicts, hotels stayed at",
  retention: "kept while the contact exists (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => {
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = n.contactIds
    return inSteps(limit, [
      (b) => counted(tx`DELETE FROM consent_records WHERE id IN (
        SELECT id FROM consent_records WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM identity_conflicts WHERE id IN (
        SELECT id FROM identity_conflicts WHERE tenant_id = ${t} AND sandbox = ${s}
          AND (contact_id = ANY(${ids}::uuid[]) OR other_contact_id = ANY(${ids}::uuid[]) OR phone = ANY(${n.phones}::text[])
            OR email = ANY(${n.emails}::text[]))
        LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM contact_hotels WHERE (contact_id, hotel_id) IN (
        SELECT contact_id, hotel_id FROM contact_hotels WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`DELETE FROM contacts WHERE id IN (
        SELECT id FROM contacts WHERE tenant_id = ${t} AND sandbox = ${s} AND id = ANY(${ids}::uuid[]) LIMIT ${b})`)
    ])
  },
  export: async (tx, subject) => {
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = subject.contactIds as Array<string>
    const [contacts, consents, conflicts, hotels] = await Promise.all([
      tx`SELECT to_jsonb(c) - ${INTERNAL}::text[] AS row FROM contacts c
        WHERE c.tenant_id = ${t} AND c.sandbox = ${s} AND c.id = ANY(${ids}::uuid[]) ORDER BY c.created_at`,
      tx`SELECT to_jsonb(r) - ${[...INTERNAL, "envelope_id"]}::text[] AS row FROM consent_records r
        WHERE r.tenant_id = ${t} AND r.sandbox = ${s} AND r.contact_id = ANY(${ids}::uuid[]) ORDER BY r.recorded_at, r.id`,
      // The conflict as it concerns the subject: which of its contacts, why, from where (the other contact is not theirs).
      tx`SELECT jsonb_build_object('contact_id', CASE WHEN i.contact_id = ANY(${ids}::uuid[]) THEN i.contact_id ELSE i.other_contact_id END,
          'reason', i.reason, 'source', i.source, 'created_at', i.created_at) AS row
        FROM identity_conflicts i WHERE i.tenant_id = ${t} AND i.sandbox = ${s}
          AND (i.contact_id = ANY(${ids}::uuid[]) OR i.other_contact_id = ANY(${ids}::uuid[])) ORDER BY i.created_at`,
      tx`SELECT jsonb_build_object('contact_id', ch.contact_id, 'hotel_id', ch.hotel_id, 'hotel', h.name,
          'first_seen_at', ch.first_seen_at, 'last_seen_at', ch.last_seen_at) AS row
        FROM contact_hotels ch JOIN hotels h ON h.id = ch.hotel_id
        WHERE ch.tenant_id = ${t} AND ch.sandbox = ${s} AND ch.contact_id = ANY(${ids}::uuid[]) ORDER BY ch.first_seen_at`
    ])
    return [...tagged("contacts", contacts), ...tagged("consent_records", consents), ...tagged("identity_conflicts", conflicts),
      ...tagged("contact_hotels", hotels)]
  }
}
