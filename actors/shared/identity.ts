import { randomUUID } from "node:crypto"
import { jsonb, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ProfileInput } from "../guest/protocol.ts"

export interface ResolveOptions {
  /** Where the claim comes from (`reservation:pms`, `guests:api`, ...), kept with conflicts. */
  readonly source: string
  readonly envelopeId: string
  /** false: an existing contact is matched but not changed. */
  readonly updateIfExists?: boolean
  /** Fields whose stored value wins over the sent one (only filled when empty). */
  readonly fillOnly?: ReadonlyArray<"date_of_birth" | "address">
  /** Values a newly created contact takes where the source sent none. */
  readonly insertDefaults?: Partial<ProfileInput>
}

export interface ResolvedContact {
  readonly contact_id: string
  readonly is_new: boolean
  /** True when the stored profile changed (new contact, or an update that altered a column). */
  readonly changed: boolean
  /** Set when the email belongs to another contact than the phone's: recorded, not merged. */
  readonly conflict_with?: string | undefined
}

const identityOf = (g: ProfileInput) => `${g.phone ?? ""}\u0000${g.email ?? ""}`

/**
 * Resolves each person carrying a phone or an email to exactly one contact: phone first, then email, else a new
 * contact. People are resolved in identity order so concurrent transactions lock contacts in the same order (no
 * deadlock); the unique indexes on (tenant, sandbox, phone|email) make duplicates impossible, and a lost insert race
 * re-reads the winner's row. One entry per person, in input order (null = no identity, no contact).
 */
export const resolveContacts = async (
  tx: Tx,
  scope: TenantScope,
  people: ReadonlyArray<ProfileInput>,
  options: ResolveOptions
): Promise<Array<ResolvedContact | null>> => {
  const results: Array<ResolvedContact | null> = people.map(() => null)
  const order = people
    .map((g, i) => ({ g, i }))
    .filter(({ g }) => g.phone !== undefined || g.email !== undefined)
    .sort((a, b) => (identityOf(a.g) < identityOf(b.g) ? -1 : identityOf(a.g) > identityOf(b.g) ? 1 : a.i - b.i))
  for (const { g, i } of order) {
    results[i] = await resolveOne(tx, scope, g, options)
  }
  return results
}

const findBy = async (tx: Tx, scope: TenantScope, column: "phone" | "email", value: string | undefined) => {
  if (value === undefined) return undefined
  const rows = column === "phone"
    ? await tx`SELECT id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND phone = ${value} FOR UPDATE`
    : await tx`SELECT id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND email = ${value} FOR UPDATE`
  return rows[0]?.id as string | undefined
}

const resolveOne = async (tx: Tx, scope: TenantScope, g: ProfileInput, options: ResolveOptions): Promise<ResolvedContact> => {
  for (let attempt = 0; attempt < 3; attempt++) {
    // Both lookups in one round trip (pipelined, locked in this order: phone's contact, then email's).
    const [byPhone, byEmail] = await Promise.all([findBy(tx, scope, "phone", g.phone), findBy(tx, scope, "email", g.email)])
    const conflict_with = byPhone !== undefined && byEmail !== undefined && byEmail !== byPhone ? byEmail : undefined
    if (conflict_with !== undefined) await recordConflict(tx, scope, byPhone!, conflict_with, g, options)
    const id = byPhone ?? byEmail
    if (id !== undefined) {
      const changed = options.updateIfExists === false ? false : await updateProfile(tx, scope, id, g, options.fillOnly ?? [])
      return { contact_id: id, is_new: false, changed, conflict_with }
    }
    const inserted = await insertContact(tx, scope, randomUUID(), withDefaults(g, options.insertDefaults), options.source)
    if (inserted !== undefined) return { contact_id: inserted, is_new: true, changed: true }
  }
  throw new Error("contact resolution did not converge after 3 attempts")
}

const withDefaults = (g: ProfileInput, defaults: Partial<ProfileInput> | undefined): ProfileInput =>
  defaults === undefined
    ? g
    : { ...g, ...Object.fromEntries(Object.entries(defaults).filter(([k]) => g[k as keyof ProfileInput] === undefined)) }

const recordConflict = (tx: Tx, scope: TenantScope, contactId: string, otherId: string, g: ProfileInput, options: ResolveOptions) =>
  tx`
    INSERT INTO identity_conflicts (tenant_id, sandbox, contact_id, other_contact_id, reason, phone, email, source, envelope_id)
    VALUES (${scope.tenant_id}, ${scope.sandbox}, ${contactId}, ${otherId}, 'email_belongs_to_another_contact',
      ${g.phone ?? null}, ${g.email ?? null}, ${options.source}, ${options.envelopeId})
    ON CONFLICT DO NOTHING`

const insertContact = async (tx: Tx, scope: TenantScope, id: string, g: ProfileInput, source: string) => {
  const rows = await tx`
    INSERT INTO contacts (id, tenant_id, sandbox, phone, email, first_name, last_name, language, date_of_birth,
      gender, nationality, document_type, document_number, address, email_consent, whatsapp_marketing_consent,
      subscription_status, source, tags, custom_fields)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${g.phone ?? null}, ${g.email ?? null}, ${g.first_name ?? null},
      ${g.last_name ?? null}, ${g.language ?? "en"}, ${g.date_of_birth ?? null}, ${g.gender ?? null},
      ${g.nationality ?? null}, ${g.document_type ?? null}, ${g.document_number ?? null}, ${jsonb(tx, g.address)}::jsonb,
      ${g.email_consent ?? null}, ${g.whatsapp_marketing_consent ?? null}, ${g.subscription_status ?? null}, ${source},
      ${[...new Set(g.tags ?? [])]}, ${jsonb(tx, g.custom_fields ?? {})}::jsonb)
    ON CONFLICT DO NOTHING
    RETURNING id`
  return rows[0]?.id as string | undefined
}

/**
 * Fills the profile with what the source says: sent values win (or, for fill-only fields, only fill a blank), values
 * not sent stay, the address and custom fields merge by key, tags accumulate. A phone or email is added only when
 * the contact has none and no other contact owns it: identity never moves between contacts silently.
 */
const updateProfile = async (tx: Tx, scope: TenantScope, id: string, g: ProfileInput, fillOnly: ReadonlyArray<string>): Promise<boolean> => {
  const { tenant_id, sandbox } = scope
  const dobFill = fillOnly.includes("date_of_birth")
  const addressFill = fillOnly.includes("address")
  const rows = await tx`
    WITH next AS (
      SELECT
        CASE WHEN c.phone IS NULL AND ${g.phone ?? null}::text IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM contacts o WHERE o.tenant_id = ${tenant_id} AND o.sandbox = ${sandbox} AND o.phone = ${g.phone ?? null})
          THEN ${g.phone ?? null} ELSE c.phone END AS phone,
        CASE WHEN c.email IS NULL AND ${g.email ?? null}::text IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM contacts o WHERE o.tenant_id = ${tenant_id} AND o.sandbox = ${sandbox} AND o.email = ${g.email ?? null})
          THEN ${g.email ?? null} ELSE c.email END AS email,
        coalesce(${g.first_name ?? null}, c.first_name) AS first_name,
        coalesce(${g.last_name ?? null}, c.last_name) AS last_name,
        coalesce(${g.language ?? null}, c.language) AS language,
        CASE WHEN ${dobFill} THEN coalesce(c.date_of_birth, ${g.date_of_birth ?? null}::date)
          ELSE coalesce(${g.date_of_birth ?? null}::date, c.date_of_birth) END AS date_of_birth,
        coalesce(${g.gender ?? null}, c.gender) AS gender,
        coalesce(${g.nationality ?? null}, c.nationality) AS nationality,
        coalesce(${g.document_type ?? null}, c.document_type) AS document_type,
        coalesce(${g.document_number ?? null}, c.document_number) AS document_number,
        CASE WHEN ${jsonb(tx, g.address)}::jsonb IS NULL THEN c.address
          WHEN ${addressFill} AND c.address IS NOT NULL AND c.address <> '{}'::jsonb THEN c.address
          ELSE coalesce(c.address, '{}'::jsonb) || ${jsonb(tx, g.address)}::jsonb END AS address,
        coalesce(${g.email_consent ?? null}::boolean, c.email_consent) AS email_consent,
        coalesce(${g.whatsapp_marketing_consent ?? null}::boolean, c.whatsapp_marketing_consent) AS whatsapp_marketing_consent,
        coalesce(${g.subscription_status ?? null}, c.subscription_status) AS subscription_status,
        ARRAY(SELECT DISTINCT t FROM unnest(c.tags || ${[...(g.tags ?? [])]}::text[]) AS t ORDER BY t) AS tags,
        c.custom_fields || ${jsonb(tx, g.custom_fields ?? {})}::jsonb AS custom_fields
      FROM contacts c WHERE c.id = ${id}
    )
    UPDATE contacts c SET
      phone = n.phone, email = n.email, first_name = n.first_name, last_name = n.last_name, language = n.language,
      date_of_birth = n.date_of_birth, gender = n.gender, nationality = n.nationality, document_type = n.document_type,
      document_number = n.document_number, address = n.address, email_consent = n.email_consent,
      whatsapp_marketing_consent = n.whatsapp_marketing_consent, subscription_status = n.subscription_status,
      tags = n.tags, custom_fields = n.custom_fields, updated_at = now()
    FROM next n
    WHERE c.id = ${id} AND (c.phone, c.email, c.first_name, c.last_name, c.language, c.date_of_birth, c.gender,
      c.nationality, c.document_type, c.document_number, c.address, c.email_consent, c.whatsapp_marketing_consent,
      c.subscription_status, c.tags, c.custom_fields)
      IS DISTINCT FROM (n.phone, n.email, n.first_name, n.last_name, n.language, n.date_of_birth, n.gender,
      n.nationality, n.document_type, n.document_number, n.address, n.email_consent, n.whatsapp_marketing_consent,
      n.subscription_status, n.tags, n.custom_fields)
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
