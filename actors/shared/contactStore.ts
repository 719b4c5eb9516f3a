import { type Tx, withRecords } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ProfileInput } from "../guest/protocol.ts"

// The contacts table, set-based: one statement for many people. The rows travel as one jsonb array
// (`jsonb_to_recordset`), so a statement's text, and its prepared plan, do not depend on how many people it carries.

/** A profile row for the statements below; absent keys are SQL NULL (say nothing). */
const profileRecord = (p: ProfileInput) => ({
  phone: p.phone, email: p.email, first_name: p.first_name, last_name: p.last_name, language: p.language,
  date_of_birth: p.date_of_birth, gender: p.gender, nationality: p.nationality, document_type: p.document_type,
  document_number: p.document_number, address: p.address, email_consent: p.email_consent,
  whatsapp_marketing_consent: p.whatsapp_marketing_consent, subscription_status: p.subscription_status,
  tags: p.tags === undefined ? undefined : [...new Set(p.tags)], custom_fields: p.custom_fields
})

const PROFILE_COLUMNS = `phone text, email text, first_name text, last_name text, language text, date_of_birth date,
  gender text, nationality text, document_type text, document_number text, address jsonb, email_consent boolean,
  whatsapp_marketing_consent boolean, subscription_status text, tags jsonb, custom_fields jsonb`

export interface Known {
  readonly id: string
  readonly phone: string | null
  readonly email: string | null
}

/** The contacts owning any of these phones or emails, locked in id order (concurrent groups never deadlock on it). */
export const lockByIdentity = (tx: Tx, scope: TenantScope, phones: ReadonlyArray<string>, emails: ReadonlyArray<string>) =>
  tx<Array<Known>>`
    SELECT id, phone, email FROM contacts
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      AND (phone = ANY(${phones as Array<string>}::text[]) OR email = ANY(${emails as Array<string>}::text[]))
    ORDER BY id FOR UPDATE`

/** New contacts; a row whose phone or email another transaction took meanwhile is skipped (not returned). */
export const insertContacts = async (
  tx: Tx,
  scope: TenantScope,
  people: ReadonlyArray<{ readonly id: string; readonly profile: ProfileInput; readonly source: string }>
): Promise<Set<string>> => {
  if (people.length === 0) return new Set()
  const records = people.map((p) => ({ id: p.id, source: p.source, ...profileRecord(p.profile) }))
  const rows = await withRecords(
    tx,
    scope,
    `INSERT INTO contacts (id, tenant_id, sandbox, phone, email, first_name, last_name, language, date_of_birth, gender,
       nationality, document_type, document_number, address, email_consent, whatsapp_marketing_consent,
       subscription_status, source, tags, custom_fields)
     SELECT s.id, $1, $2, s.phone, s.email, s.first_name, s.last_name, coalesce(s.language, 'en'), s.date_of_birth,
       s.gender, s.nationality, s.document_type, s.document_number, s.address, s.email_consent,
       s.whatsapp_marketing_consent, s.subscription_status, s.source,
       ARRAY(SELECT t FROM jsonb_array_elements_text(coalesce(s.tags, '[]'::jsonb)) WITH ORDINALITY AS x(t, n) ORDER BY n),
       coalesce(s.custom_fields, '{}'::jsonb)
     FROM jsonb_to_recordset($3::jsonb) AS s(id uuid, source text, ${PROFILE_COLUMNS})
     ON CONFLICT DO NOTHING
     RETURNING id`,
    records
  )
  return new Set(rows.map((r) => r.id as string))
}

/**
 * The update of `updateContacts` ($1 tenant, $2 sandbox, $3 the people as jsonb): exported for the test that holds its
 * plan to primary-key and row-address lookups on a table whose statistics are young.
 */
export const UPDATE_CONTACTS = `WITH s AS (
       SELECT * FROM jsonb_to_recordset($3::jsonb) AS s(id uuid, dob_fill boolean, address_fill boolean, ${PROFILE_COLUMNS})
     ), next AS (
       -- \`OFFSET 0\` keeps each NOT EXISTS a probe of the unique index for the rows that need it: without it the planner
       -- may hash every contact of the tenant once per statement instead, which young statistics made look cheaper.
       SELECT c.row_ctid, c.id,
         CASE WHEN c.phone IS NULL AND s.phone IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM contacts o WHERE o.tenant_id = $1 AND o.sandbox = $2 AND o.phone = s.phone OFFSET 0)
           THEN s.phone ELSE c.phone END AS phone,
         CASE WHEN c.email IS NULL AND s.email IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM contacts o WHERE o.tenant_id = $1 AND o.sandbox = $2 AND o.email = s.email OFFSET 0)
           THEN s.email ELSE c.email END AS email,
         coalesce(s.first_name, c.first_name) AS first_name,
         coalesce(s.last_name, c.last_name) AS last_name,
         coalesce(s.language, c.language) AS language,
         CASE WHEN s.dob_fill THEN coalesce(c.date_of_birth, s.date_of_birth)
           ELSE coalesce(s.date_of_birth, c.date_of_birth) END AS date_of_birth,
         coalesce(s.gender, c.gender) AS gender,
         coalesce(s.nationality, c.nationality) AS nationality,
         coalesce(s.document_type, c.document_type) AS document_type,
         coalesce(s.document_number, c.document_number) AS document_number,
         CASE WHEN s.address IS NULL THEN c.address
           WHEN s.address_fill AND c.address IS NOT NULL AND c.address <> '{}'::jsonb THEN c.address
           ELSE coalesce(c.address, '{}'::jsonb) || s.address END AS address,
         -- an opt-out is sticky: no feed's claim turns the channel's marketing consent back on
         CASE WHEN c.email_opted_out_at IS NOT NULL THEN c.email_consent
           ELSE coalesce(s.email_consent, c.email_consent) END AS email_consent,
         CASE WHEN c.whatsapp_opted_out_at IS NOT NULL THEN c.whatsapp_marketing_consent
           ELSE coalesce(s.whatsapp_marketing_consent, c.whatsapp_marketing_consent) END AS whatsapp_marketing_consent,
         coalesce(s.subscription_status, c.subscription_status) AS subscription_status,
         ARRAY(SELECT DISTINCT t FROM unnest(c.tags || ARRAY(SELECT jsonb_array_elements_text(coalesce(s.tags, '[]'::jsonb)))) AS t
           ORDER BY t) AS tags,
         c.custom_fields || coalesce(s.custom_fields, '{}'::jsonb) AS custom_fields
       -- One primary-key probe per person, whatever the planner's statistics say: a LIMIT keeps the subquery from being
       -- flattened into a join, which a young table's statistics turned into scans of the tenant's every contact.
       FROM s CROSS JOIN LATERAL (SELECT ctid AS row_ctid, * FROM contacts WHERE id = s.id LIMIT 1) c
     )
     UPDATE contacts c SET
       phone = n.phone, email = n.email, first_name = n.first_name, last_name = n.last_name, language = n.language,
       date_of_birth = n.date_of_birth, gender = n.gender, nationality = n.nationality, document_type = n.document_type,
       document_number = n.document_number, address = n.address, email_consent = n.email_consent,
       whatsapp_marketing_consent = n.whatsapp_marketing_consent, subscription_status = n.subscription_status,
       tags = n.tags, custom_fields = n.custom_fields, updated_at = now()
     FROM next n
     -- By the rows' addresses (a TID scan, whatever the statistics say; joined on the address, the planner would
     -- rather hash the whole table than believe few rows come): lockByIdentity locked these rows in this transaction,
     -- so no other transaction moved them since they were read above.
     WHERE c.ctid = ANY(ARRAY(SELECT row_ctid FROM next)) AND c.ctid = n.row_ctid AND c.id = n.id AND (c.phone, c.email, c.first_name, c.last_name, c.language, c.date_of_birth, c.gender,
       c.nationality, c.document_type, c.document_number, c.address, c.email_consent, c.whatsapp_marketing_consent,
       c.subscription_status, c.tags, c.custom_fields)
       IS DISTINCT FROM (n.phone, n.email, n.first_name, n.last_name, n.language, n.date_of_birth, n.gender,
       n.nationality, n.document_type, n.document_number, n.address, n.email_consent, n.whatsapp_marketing_consent,
       n.subscription_status, n.tags, n.custom_fields)
     RETURNING c.id`

/**
 * Fills existing contacts with what each source says: sent values win (or, for fill-only fields, only fill a
 * blank), values not sent stay, the address and custom fields merge by key, tags accumulate. A phone or email is
 * added only when the contact has none and no other contact owns it: identity never moves between contacts silently.
 * One row per contact. Returns the ids whose stored profile changed. The contacts must be locked by this transaction
 * (`lockByIdentity`): the update finds each row by the address it was read at.
 */
export const updateContacts = async (
  tx: Tx,
  scope: TenantScope,
  people: ReadonlyArray<{ readonly id: string; readonly profile: ProfileInput; readonly fillOnly: ReadonlyArray<string> }>
): Promise<Set<string>> => {
  if (people.length === 0) return new Set()
  const records = people.map((p) => ({
    id: p.id, dob_fill: p.fillOnly.includes("date_of_birth"), address_fill: p.fillOnly.includes("address"), ...profileRecord(p.profile)
  }))
  const rows = await withRecords(tx, scope, UPDATE_CONTACTS, records)
  return new Set(rows.map((r) => r.id as string))
}

export interface Conflict {
  readonly contact_id: string
  readonly other_contact_id: string
  readonly phone: string | null
  readonly email: string | null
  readonly source: string
  readonly envelope_id: string
}

/** A phone matching one contact and an email owned by another: recorded for review, nothing merged. */
export const recordConflicts = async (tx: Tx, scope: TenantScope, conflicts: ReadonlyArray<Conflict>) => {
  if (conflicts.length === 0) return
  await withRecords(
    tx,
    scope,
    `INSERT INTO identity_conflicts (tenant_id, sandbox, contact_id, other_contact_id, reason, phone, email, source, envelope_id)
     SELECT $1, $2, s.contact_id, s.other_contact_id, 'email_belongs_to_another_contact', s.phone, s.email, s.source, s.envelope_id
     FROM jsonb_to_recordset($3::jsonb) AS s(contact_id uuid, other_contact_id uuid, phone text, email text, source text, envelope_id text)
     ON CONFLICT DO NOTHING`,
    conflicts
  )
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
  const rows = await tx<Array<ContactSummary>>`SELECT id, phone, email, first_name, last_name FROM contacts WHERE id = ANY(${ids as Array<string>}::uuid[])`
  return new Map(rows.map((r) => [r.id, r]))
}
