import type { Tx } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"
import { contactIdentifiers, type Identifier } from "./identifier.ts"

/** How a request names the person: a contact of the account, or an identifier in stored spelling. */
export type NamedSubject = { readonly kind: "contact_id"; readonly value: string } | Identifier

export interface ResolvedSubject {
  readonly contactIds: ReadonlyArray<string>
  /** The named identifier (if one) and every identifier of the contacts reached, each once. */
  readonly identifiers: ReadonlyArray<Identifier>
}

const key = (i: Identifier) => `${i.kind}:${i.value}`

/**
 * Every contact of the account and mode the subject reaches: the contact named, or the contacts holding the phone or
 * email; then, one step further, the contacts an identity conflict joins to them (a source sent this phone with an
 * email another contact owns: the platform kept two contacts, but they are one person's), and every identifier those
 * contacts and conflicts carry. One step, not a closure: a conflict chain reaching a third person's contact is
 * something a reviewer decides, not an erasure. Contacts in id order.
 */
export const resolveSubject = async (tx: Tx, scope: TenantScope, named: NamedSubject): Promise<ResolvedSubject> => {
  const direct = named.kind === "contact_id"
    ? await tx<Array<{ id: string }>>`
        SELECT id::text AS id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id = ${named.value}`
    : await tx<Array<{ id: string }>>`
        SELECT id::text AS id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
          AND ${named.kind === "phone" ? tx`phone` : tx`email`} = ${named.value}
        UNION
        SELECT unnest(ARRAY[contact_id, other_contact_id])::text FROM identity_conflicts
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
          AND ${named.kind === "phone" ? tx`phone` : tx`email`} = ${named.value}`
  const first = direct.map((r) => r.id)
  const rows = first.length === 0 ? [] : await tx<Array<{ id: string; phone: string | null; email: string | null }>>`
    SELECT id::text AS id, phone, email FROM contacts
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id IN (
      SELECT unnest(${first}::uuid[])
      UNION SELECT other_contact_id FROM identity_conflicts
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND contact_id = ANY(${first}::uuid[])
      UNION SELECT contact_id FROM identity_conflicts
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND other_contact_id = ANY(${first}::uuid[]))
    UNION ALL
    SELECT NULL, phone, email FROM identity_conflicts
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      AND (contact_id = ANY(${first}::uuid[]) OR other_contact_id = ANY(${first}::uuid[]))`
  const identifiers = new Map<string, Identifier>()
  if (named.kind !== "contact_id") identifiers.set(key(named), named)
  for (const r of rows) for (const i of contactIdentifiers(r)) identifiers.set(key(i), i)
  const contactIds = [...new Set(rows.flatMap((r) => (r.id === null ? [] : [r.id])))].sort()
  return { contactIds, identifiers: [...identifiers.values()] }
}
