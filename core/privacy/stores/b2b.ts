import type { PrivacyStore } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

// B2B: a person at an agency or company is a contact; the account and its deals are the business's and stay, without
// the person (no contact on a deal, not among the account's desk addresses).

export const b2bPeopleStore: PrivacyStore = {
  store: "b2b_account_contacts",
  action: "deleted",
  tables: ["b2b_account_contacts"],
  holds: "the contact's role and title at a B2B account",
  retention: "kept (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => counted(tx`DELETE FROM b2b_account_contacts WHERE (account_id, contact_id) IN (
    SELECT account_id, contact_id FROM b2b_account_contacts WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
      AND contact_id = ANY(${subject.contactIds as Array<string>}::uuid[]) LIMIT ${limit})`),
  export: async (tx, subject) => tagged("b2b_account_contacts", await tx`
    SELECT (to_jsonb(x) - ${INTERNAL}::text[]) || jsonb_build_object('account', a.name) AS row
    FROM b2b_account_contacts x JOIN b2b_accounts a ON a.id = x.account_id
    WHERE x.tenant_id = ${subject.scope.tenant_id} AND x.sandbox = ${subject.scope.sandbox}
      AND x.contact_id = ANY(${subject.contactIds as Array<string>}::uuid[])`)
}

export const b2bAccountsStore: PrivacyStore = {
  store: "b2b_accounts",
  action: "anonymised",
  tables: ["b2b_deals", "b2b_accounts"],
  holds: "deals naming the contact as their person; accounts' desk emails and phone",
  retention: "kept (the business's records): an erasure unlinks the contact from deals and drops its email or phone from accounts",
  erase: (tx, subject, limit) => {
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    return inSteps(limit, [
      (b) => counted(tx`UPDATE b2b_deals SET contact_id = NULL, updated_at = now() WHERE id IN (
        SELECT id FROM b2b_deals WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${n.contactIds}::uuid[]) LIMIT ${b})`),
      (b) => counted(tx`
        UPDATE b2b_accounts SET desk_emails = ARRAY(SELECT d FROM unnest(desk_emails) d WHERE lower(d) <> ALL(${n.emails}::text[])),
          phone = CASE WHEN phone = ANY(${n.phones}::text[]) THEN NULL ELSE phone END, updated_at = now()
        WHERE id IN (SELECT id FROM b2b_accounts WHERE tenant_id = ${t} AND sandbox = ${s}
          AND (phone = ANY(${n.phones}::text[]) OR EXISTS (SELECT 1 FROM unnest(desk_emails) d WHERE lower(d) = ANY(${n.emails}::text[])))
          LIMIT ${b})`)
    ])
  },
  export: async (tx, subject) => tagged("b2b_deals", await tx`
    SELECT jsonb_build_object('deal_id', d.id, 'account', a.name, 'name', d.name, 'type', d.type, 'stage', d.stage,
        'arrival', d.arrival, 'departure', d.departure, 'created_at', d.created_at) AS row
    FROM b2b_deals d JOIN b2b_accounts a ON a.id = d.account_id
    WHERE d.tenant_id = ${subject.scope.tenant_id} AND d.sandbox = ${subject.scope.sandbox}
      AND d.contact_id = ANY(${subject.contactIds as Array<string>}::uuid[])`)
}
