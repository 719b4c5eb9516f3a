import { jsonb, type Tx } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"
import type { EmailChannel, WhatsAppTemplate } from "./repository.ts"

// Writers of the channel configuration (the channel API and the CLI), beside the readers of repository.ts that the
// send path uses. Every function takes a transaction already confined to the scope's tenant (`actAsTenant`), and still
// filters on tenant and mode itself.

export interface EmailChannelRecord extends EmailChannel {
  readonly updated_at: Date
}

/** The stored WhatsApp row as the configuration API sees it: ciphertexts only, never decrypted here. */
export interface WhatsAppChannelRecord {
  readonly phone_number_id: string
  readonly access_token_encrypted: Uint8Array
  readonly app_secret_encrypted: Uint8Array
  readonly verify_token_sha256: string | null
  readonly send_rate_per_minute: number | null
  readonly updated_at: Date
}

export const readEmailChannelRecord = async (tx: Tx, scope: TenantScope, lock = false): Promise<EmailChannelRecord | null> => {
  const [row] = lock
    ? await tx`SELECT from_address, from_name, reply_to, hotel_overrides, send_rate_per_minute, updated_at FROM channel_email
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} FOR UPDATE`
    : await tx`SELECT from_address, from_name, reply_to, hotel_overrides, send_rate_per_minute, updated_at FROM channel_email
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return row ? (row as unknown as EmailChannelRecord) : null
}

export const writeEmailChannel = async (tx: Tx, scope: TenantScope, c: EmailChannel): Promise<EmailChannelRecord> => {
  const [row] = await tx`
    INSERT INTO channel_email (tenant_id, sandbox, from_address, from_name, reply_to, hotel_overrides, send_rate_per_minute)
    VALUES (${scope.tenant_id}, ${scope.sandbox}, ${c.from_address}, ${c.from_name}, ${c.reply_to},
      ${jsonb(tx, c.hotel_overrides)}, ${c.send_rate_per_minute})
    ON CONFLICT (tenant_id, sandbox) DO UPDATE SET from_address = EXCLUDED.from_address, from_name = EXCLUDED.from_name,
      reply_to = EXCLUDED.reply_to, hotel_overrides = EXCLUDED.hotel_overrides,
      send_rate_per_minute = EXCLUDED.send_rate_per_minute, updated_at = now()
    RETURNING from_address, from_name, reply_to, hotel_overrides, send_rate_per_minute, updated_at`
  return row as unknown as EmailChannelRecord
}

/** Which of `ids` are not hotels of the tenant (ids that are no UUID included: compared as text, never cast). */
export const hotelsNotOfTenant = async (tx: Tx, tenantId: string, ids: ReadonlyArray<string>): Promise<Array<string>> => {
  if (ids.length === 0) return []
  const rows = await tx`SELECT id::text AS id FROM hotels WHERE tenant_id = ${tenantId} AND id::text = ANY(${ids as Array<string>})`
  const known = new Set(rows.map((r) => r.id as string))
  return ids.filter((id) => !known.has(id))
}

/** A hotel of the tenant by id or by code (the CLI accepts either). */
export const findHotel = async (tx: Tx, tenantId: string, idOrCode: string): Promise<string | null> => {
  const [row] = await tx`SELECT id::text AS id FROM hotels WHERE tenant_id = ${tenantId} AND (id::text = ${idOrCode} OR code = ${idOrCode})
    ORDER BY (id::text = ${idOrCode}) DESC LIMIT 1`
  return (row?.id as string | undefined) ?? null
}

export const readWhatsAppChannelRecord = async (tx: Tx, scope: TenantScope, lock = false): Promise<WhatsAppChannelRecord | null> => {
  const [row] = lock
    ? await tx`SELECT phone_number_id, access_token_encrypted, app_secret_encrypted, verify_token_sha256, send_rate_per_minute, updated_at
        FROM channel_whatsapp WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} FOR UPDATE`
    : await tx`SELECT phone_number_id, access_token_encrypted, app_secret_encrypted, verify_token_sha256, send_rate_per_minute, updated_at
        FROM channel_whatsapp WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return row ? (row as unknown as WhatsAppChannelRecord) : null
}

const PHONE_NUMBER_ID_UNIQUE = "channel_whatsapp_phone_number_id_key"

/**
 * Inserts or replaces the scope's WhatsApp row. A phone number id another account or mode holds answers
 * `phone_number_id_taken` (the unique constraint decides, so two accounts racing for one number cannot both win);
 * the savepoint keeps the surrounding transaction usable, and nothing of this row is written.
 */
export const writeWhatsAppChannel = async (
  tx: Tx,
  scope: TenantScope,
  r: Omit<WhatsAppChannelRecord, "updated_at">
): Promise<WhatsAppChannelRecord | "phone_number_id_taken"> => {
  try {
    const [row] = await tx.savepoint((sp) => sp`
      INSERT INTO channel_whatsapp (tenant_id, sandbox, phone_number_id, access_token_encrypted, app_secret_encrypted,
        verify_token_sha256, send_rate_per_minute)
      VALUES (${scope.tenant_id}, ${scope.sandbox}, ${r.phone_number_id}, ${Buffer.from(r.access_token_encrypted)},
        ${Buffer.from(r.app_secret_encrypted)}, ${r.verify_token_sha256}, ${r.send_rate_per_minute})
      ON CONFLICT (tenant_id, sandbox) DO UPDATE SET phone_number_id = EXCLUDED.phone_number_id,
        access_token_encrypted = EXCLUDED.access_token_encrypted, app_secret_encrypted = EXCLUDED.app_secret_encrypted,
        verify_token_sha256 = EXCLUDED.verify_token_sha256, send_rate_per_minute = EXCLUDED.send_rate_per_minute,
        updated_at = now()
      RETURNING phone_number_id, access_token_encrypted, app_secret_encrypted, verify_token_sha256, send_rate_per_minute, updated_at`)
    return row as unknown as WhatsAppChannelRecord
  } catch (e) {
    const err = e as { code?: string; constraint_name?: string }
    if (err.code === "23505" && err.constraint_name === PHONE_NUMBER_ID_UNIQUE) return "phone_number_id_taken"
    throw e
  }
}

export const listTemplates = (tx: Tx, scope: TenantScope) =>
  tx<Array<WhatsAppTemplate>>`SELECT name, language, category, body_parameters FROM whatsapp_templates
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} ORDER BY name, language`

/** The registered set becomes exactly `templates` (inside the caller's transaction: all or nothing). */
export const replaceTemplates = async (tx: Tx, scope: TenantScope, templates: ReadonlyArray<WhatsAppTemplate>): Promise<void> => {
  await tx`DELETE FROM whatsapp_templates WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  if (templates.length === 0) return
  await tx`
    INSERT INTO whatsapp_templates (tenant_id, sandbox, name, language, category, body_parameters)
    SELECT ${scope.tenant_id}, ${scope.sandbox}, t.name, t.language, t.category, t.body_parameters
    FROM jsonb_to_recordset(${jsonb(tx, templates)}) AS t(name text, language text, category text, body_parameters int)`
}

export const upsertTemplate = async (tx: Tx, scope: TenantScope, t: WhatsAppTemplate): Promise<void> => {
  await tx`
    INSERT INTO whatsapp_templates (tenant_id, sandbox, name, language, category, body_parameters)
    VALUES (${scope.tenant_id}, ${scope.sandbox}, ${t.name}, ${t.language}, ${t.category}, ${t.body_parameters})
    ON CONFLICT (tenant_id, sandbox, name, language) DO UPDATE SET category = EXCLUDED.category, body_parameters = EXCLUDED.body_parameters`
}

export const deleteTemplate = async (tx: Tx, scope: TenantScope, name: string, language: string): Promise<boolean> => {
  const rows = await tx`DELETE FROM whatsapp_templates
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND name = ${name} AND language = ${language} RETURNING 1`
  return rows.length > 0
}

/** Touches the channel row, so `updated_at` tells when its templates last changed too. */
export const touchWhatsAppChannel = async (tx: Tx, scope: TenantScope): Promise<void> => {
  await tx`UPDATE channel_whatsapp SET updated_at = now() WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
}
