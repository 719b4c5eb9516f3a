import { randomUUID } from "node:crypto"
import { jsonb, type Tx } from "../../src/db/Database.ts"
import type { GuestInput } from "../reservation/command.ts"

export interface Scope {
  readonly tenant_id: string
  readonly sandbox: boolean
}

export interface ResolvedContact {
  readonly contact_id: string
  readonly is_new: boolean
  /** True when the stored profile changed (new contact, or an update that altered a column). */
  readonly changed: boolean
}

const identityOf = (g: GuestInput) => `${g.phone ?? ""}\u0000${g.email ?? ""}`

/**
 * Resolves each guest that carries a phone or an email to exactly one contact: phone first, then email, else a new
 * contact. Guests are resolved in identity order so two transactions touching the same contacts lock them in the
 * same order (no deadlock); the unique indexes on (tenant, sandbox, phone|email) make duplicates impossible, and a
 * lost insert race re-reads the winner's row. Returns one entry per guest, in guest order (null = no contact).
 */
export const resolveGuestContacts = async (
  tx: Tx,
  scope: Scope,
  guests: ReadonlyArray<GuestInput>
): Promise<Array<ResolvedContact | null>> => {
  const results: Array<ResolvedContact | null> = guests.map(() => null)
  const order = guests
    .map((g, i) => ({ g, i }))
    .filter(({ g }) => g.phone !== undefined || g.email !== undefined)
    .sort((a, b) => (identityOf(a.g) < identityOf(b.g) ? -1 : identityOf(a.g) > identityOf(b.g) ? 1 : a.i - b.i))
  for (const { g, i } of order) {
    results[i] = await resolveOne(tx, scope, g)
  }
  return results
}

const resolveOne = async (tx: Tx, scope: Scope, g: GuestInput): Promise<ResolvedContact> => {
  const { tenant_id, sandbox } = scope
  for (let attempt = 0; attempt < 3; attempt++) {
    let found = g.phone === undefined ? [] : await tx`
      SELECT id FROM contacts WHERE tenant_id = ${tenant_id} AND sandbox = ${sandbox} AND phone = ${g.phone} FOR UPDATE`
    if (found.length === 0 && g.email !== undefined) {
      found = await tx`
        SELECT id FROM contacts WHERE tenant_id = ${tenant_id} AND sandbox = ${sandbox} AND email = ${g.email} FOR UPDATE`
    }
    if (found.length > 0) {
      const id = found[0]!.id as string
      return { contact_id: id, is_new: false, changed: await updateProfile(tx, scope, id, g) }
    }
    const id = randomUUID()
    const inserted = await tx`
      INSERT INTO contacts (id, tenant_id, sandbox, phone, email, first_name, last_name, language, date_of_birth,
        gender, nationality, document_type, document_number, address, email_consent, whatsapp_marketing_consent)
      VALUES (${id}, ${tenant_id}, ${sandbox}, ${g.phone ?? null}, ${g.email ?? null}, ${g.first_name},
        ${g.last_name ?? null}, ${g.language ?? "en"}, ${g.date_of_birth ?? null}, ${g.gender ?? null},
        ${g.nationality ?? null}, ${g.document_type ?? null}, ${g.document_number ?? null},
        ${jsonb(tx, g.address)}::jsonb, ${g.email_consent ?? null}, ${g.whatsapp_marketing_consent ?? null})
      ON CONFLICT DO NOTHING
      RETURNING id`
    if (inserted.length > 0) return { contact_id: id, is_new: true, changed: true }
  }
  throw new Error("contact resolution did not converge after 3 attempts")
}

/**
 * Fills the profile with what the guest record says: sent values win, values not sent stay, the address merges by
 * sub-field. A phone or email is added only when the contact has none and no other contact owns it (identity is
 * never moved silently between contacts).
 */
const updateProfile = async (tx: Tx, scope: Scope, id: string, g: GuestInput): Promise<boolean> => {
  const { tenant_id, sandbox } = scope
  const rows = await tx`
    WITH next AS (
      SELECT
        CASE WHEN c.phone IS NULL AND ${g.phone ?? null}::text IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM contacts o WHERE o.tenant_id = ${tenant_id} AND o.sandbox = ${sandbox} AND o.phone = ${g.phone ?? null})
          THEN ${g.phone ?? null} ELSE c.phone END AS phone,
        CASE WHEN c.email IS NULL AND ${g.email ?? null}::text IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM contacts o WHERE o.tenant_id = ${tenant_id} AND o.sandbox = ${sandbox} AND o.email = ${g.email ?? null})
          THEN ${g.email ?? null} ELSE c.email END AS email,
        coalesce(${g.first_name}, c.first_name) AS first_name,
        coalesce(${g.last_name ?? null}, c.last_name) AS last_name,
        coalesce(${g.language ?? null}, c.language) AS language,
        coalesce(${g.date_of_birth ?? null}::date, c.date_of_birth) AS date_of_birth,
        coalesce(${g.gender ?? null}, c.gender) AS gender,
        coalesce(${g.nationality ?? null}, c.nationality) AS nationality,
        coalesce(${g.document_type ?? null}, c.document_type) AS document_type,
        coalesce(${g.document_number ?? null}, c.document_number) AS document_number,
        CASE WHEN ${jsonb(tx, g.address)}::jsonb IS NULL THEN c.address
          ELSE coalesce(c.address, '{}'::jsonb) || ${jsonb(tx, g.address)}::jsonb END AS address,
        coalesce(${g.email_consent ?? null}::boolean, c.email_consent) AS email_consent,
        coalesce(${g.whatsapp_marketing_consent ?? null}::boolean, c.whatsapp_marketing_consent) AS whatsapp_marketing_consent
      FROM contacts c WHERE c.id = ${id}
    )
    UPDATE contacts c SET
      phone = n.phone, email = n.email, first_name = n.first_name, last_name = n.last_name, language = n.language,
      date_of_birth = n.date_of_birth, gender = n.gender, nationality = n.nationality, document_type = n.document_type,
      document_number = n.document_number, address = n.address, email_consent = n.email_consent,
      whatsapp_marketing_consent = n.whatsapp_marketing_consent, updated_at = now()
    FROM next n
    WHERE c.id = ${id} AND (c.phone, c.email, c.first_name, c.last_name, c.language, c.date_of_birth, c.gender,
      c.nationality, c.document_type, c.document_number, c.address, c.email_consent, c.whatsapp_marketing_consent)
      IS DISTINCT FROM (n.phone, n.email, n.first_name, n.last_name, n.language, n.date_of_birth, n.gender,
      n.nationality, n.document_type, n.document_number, n.address, n.email_consent, n.whatsapp_marketing_consent)
    RETURNING c.id`
  return rows.length > 0
}

export interface ContactSummary {
  readonly id: string
  readonly phone: string | null
  readonly email: string | null
  readonly first_name: string | null
  readonly last_name: string | null
}

export const loadContactSummaries = async (tx: Tx, ids: ReadonlyArray<string>): Promise<Map<string, ContactSummary>> => {
  if (ids.length === 0) return new Map()
  const rows = await tx`SELECT id, phone, email, first_name, last_name FROM contacts WHERE id = ANY(${ids}::uuid[])`
  return new Map(rows.map((r) => [r.id as string, r as unknown as ContactSummary]))
}
