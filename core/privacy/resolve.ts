import type { Tx } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"
import { contactIdentifiers, type Identifier } from "./identifier.ts"

/** How a request names the person: a contact of the account, or an identifier in stored spelling. */
export type NamedSubject = { readonly kind: "contact_id"; readonly value: string } | Identifier

export interface ResolvedSubject {
  readonly contactIds: ReadonlyArray<string>
  /** The named identifier (if one) and every identifier of the contacts reached, each once. */
  readonly identifiers: ReadonlyArray<Identifier>
  /**
   * Contacts an identity conflict joins to the subject (a source sent the subject's phone with another contact's email,
   * or the other way round) and that the subject's identifiers do not reach themselves: possibly the same person,
   * possibly a companion whose email a PMS put on the wrong guest. Reported, never acted on.
   */
  readonly relatedContactIds: ReadonlyArray<string>
}

const key = (i: Identifier) => `${i.kind}:${i.value}`

/**
 * Every contact of the account and mode the subject reaches: the contact named, or the contact holding the phone and
 * the one holding the email (an identity conflict keeps them two), and every identifier those contacts carry. The
 * identity conflicts naming them are found too: the rows go with the erasure, and the other contacts they name are
 * reported as related rather than erased, since the platform never merged them on one source's word and an erasure
 * cannot be undone. Contacts in id order.
 */
export const resolveSubject = async (tx: Tx, scope: TenantScope, named: NamedSubject): Promise<ResolvedSubject> => {
  const contacts = named.kind === "contact_id"
    ? await tx<Array<{ id: string; phone: string | null; email: string | null }>>`
        SELECT id::text AS id, phone, email FROM contacts
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${named.value}`
    : await tx<Array<{ id: string; phone: string | null; email: string | null }>>`
        SELECT id::text AS id, phone, email FROM contacts
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
          AND ${named.kind === "phone" ? tx`phone` : tx`email`} = ${named.value}`
  const contactIds = contacts.map((c) => c.id).sort()
  const identifiers = new Map<string, Identifier>()
  if (named.kind !== "contact_id") identifiers.set(key(named), named)
  for (const c of contacts) for (const i of contactIdentifiers(c)) identifiers.set(key(i), i)
  const phones = [...identifiers.values()].filter((i) => i.kind === "phone").map((i) => i.value)
  const emails = [...identifiers.values()].filter((i) => i.kind === "email").map((i) => i.value)
  const related = await tx<Array<{ id: string }>>`
    SELECT DISTINCT unnest(ARRAY[contact_id, other_contact_id])::text AS id FROM identity_conflicts
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      AND (contact_id = ANY(${contactIds}::uuid[]) OR other_contact_id = ANY(${contactIds}::uuid[])
        OR phone = ANY(${phones}::text[]) OR email = ANY(${emails}::text[]))`
  return {
    contactIds,
    identifiers: [...identifiers.values()],
    relatedContactIds: related.map((r) => r.id).filter((id) => !contactIds.includes(id)).sort()
  }
}
