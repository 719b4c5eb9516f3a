import type { PrivacyStore } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, INTERNAL, tagged } from "./rows.ts"

/** Newsletter subscriptions: the address, the name given, the sign-up's and the confirmation's IP and user agent. */
export const newsletterStore: PrivacyStore = {
  store: "newsletter_subscriptions",
  action: "deleted",
  tables: ["newsletter_subscriptions"],
  holds: "subscription (email, first name, consent text, sign-up and confirmation IP and user agent, origin)",
  retention: "kept while subscribed or pending (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => {
    const n = needlesOf(subject)
    return counted(tx`DELETE FROM newsletter_subscriptions WHERE id IN (
      SELECT id FROM newsletter_subscriptions WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
        AND (contact_id = ANY(${n.contactIds}::uuid[]) OR email = ANY(${n.emails}::text[])) LIMIT ${limit})`)
  },
  export: async (tx, subject) => {
    const n = needlesOf(subject)
    return tagged("newsletter_subscriptions", await tx`
      SELECT to_jsonb(x) - ${[...INTERNAL, "nonce", "recent_sends"]}::text[] AS row FROM newsletter_subscriptions x
      WHERE x.tenant_id = ${subject.scope.tenant_id} AND x.sandbox = ${subject.scope.sandbox}
        AND (x.contact_id = ANY(${n.contactIds}::uuid[]) OR x.email = ANY(${n.emails}::text[]))
      ORDER BY x.created_at`)
  }
}
