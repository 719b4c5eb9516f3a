import { createHash } from "node:crypto"
import type { Sql, Tx } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"
import { decryptSecret, encryptSecret } from "../webhook/secrets.ts"

// Channel configuration as the send path, the provider webhooks and the channel API read it. Secrets are encrypted
// with the platform's at-rest key (the one webhook signing secrets use); the associated data names tenant, mode and
// field, so a ciphertext copied to another row or column fails to decrypt.

export type Channel = "email" | "whatsapp"
export type TemplateCategory = "marketing" | "utility" | "authentication"

export interface SenderIdentity {
  readonly from_address?: string | undefined
  readonly from_name?: string | undefined
  readonly reply_to?: string | undefined
}

export interface EmailChannel {
  readonly from_address: string
  readonly from_name: string | null
  readonly reply_to: string | null
  /** Per hotel id: what replaces the tenant's sender for mail about that hotel. */
  readonly hotel_overrides: Readonly<Record<string, SenderIdentity>>
  readonly send_rate_per_minute: number | null
}

export interface WhatsAppTemplate {
  readonly name: string
  readonly language: string
  readonly category: TemplateCategory
  readonly body_parameters: number
}

export interface WhatsAppChannel {
  readonly phone_number_id: string
  readonly access_token: string
  readonly app_secret: string
  readonly templates: ReadonlyArray<WhatsAppTemplate>
  readonly send_rate_per_minute: number | null
}

export type SecretField = "access_token" | "app_secret"

const aad = (scope: TenantScope, field: SecretField) => `${scope.tenant_id}:${scope.sandbox}:${field}`

export const encryptChannelSecret = (key: Buffer, scope: TenantScope, field: SecretField, secret: string): Buffer =>
  encryptSecret(key, secret, aad(scope, field))

export const decryptChannelSecret = (key: Buffer, scope: TenantScope, field: SecretField, blob: Uint8Array): string =>
  decryptSecret(key, Buffer.from(blob), aad(scope, field))

/** The verify token of the WhatsApp subscription handshake is only ever compared: kept as its SHA-256. */
export const verifyTokenDigest = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex")

/** The sender for mail about `hotelId`: the hotel's override field by field, else the tenant's. */
export const senderFor = (channel: EmailChannel, hotelId: string | null | undefined) => {
  const o = (hotelId ? channel.hotel_overrides[hotelId] : undefined) ?? {}
  return {
    from_address: o.from_address ?? channel.from_address,
    from_name: o.from_name ?? channel.from_name,
    reply_to: o.reply_to ?? channel.reply_to
  }
}

export const readEmailChannel = async (tx: Tx | Sql, scope: TenantScope): Promise<EmailChannel | null> => {
  const [row] = await tx`
    SELECT from_address, from_name, reply_to, hotel_overrides, send_rate_per_minute FROM channel_email
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return row ? (row as unknown as EmailChannel) : null
}

/** The WhatsApp number, its templates and send rate, without its secrets: what a send is checked against. */
export const readWhatsAppSetup = async (tx: Tx | Sql, scope: TenantScope): Promise<Omit<WhatsAppChannel, SecretField> | null> => {
  const [[row], templates] = await Promise.all([
    tx`SELECT phone_number_id, send_rate_per_minute FROM channel_whatsapp WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`,
    tx<Array<WhatsAppTemplate>>`SELECT name, language, category, body_parameters FROM whatsapp_templates
       WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} ORDER BY name, language`
  ])
  return row ? { phone_number_id: row.phone_number_id as string, templates, send_rate_per_minute: row.send_rate_per_minute as number | null } : null
}

export const readWhatsAppChannel = async (tx: Tx | Sql, scope: TenantScope, key: Buffer): Promise<WhatsAppChannel | null> => {
  const [setup, [row]] = await Promise.all([
    readWhatsAppSetup(tx, scope),
    tx`SELECT access_token_encrypted, app_secret_encrypted FROM channel_whatsapp WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  ])
  if (!setup || !row) return null
  return {
    ...setup,
    access_token: decryptChannelSecret(key, scope, "access_token", row.access_token_encrypted as Uint8Array),
    app_secret: decryptChannelSecret(key, scope, "app_secret", row.app_secret_encrypted as Uint8Array)
  }
}

/**
 * The tenant and mode a WhatsApp webhook is for, from the phone number id it names, with the app secret that signs
 * it. Read with the owner's role: the request carries no tenant until this answers.
 */
export const whatsAppByPhoneNumberId = async (sql: Sql, phoneNumberId: string, key: Buffer): Promise<{ scope: TenantScope; app_secret: string } | null> => {
  const [row] = await sql`SELECT tenant_id, sandbox, app_secret_encrypted FROM channel_whatsapp WHERE phone_number_id = ${phoneNumberId}`
  if (!row) return null
  const scope = { tenant_id: row.tenant_id as string, sandbox: row.sandbox as boolean }
  return { scope, app_secret: decryptChannelSecret(key, scope, "app_secret", row.app_secret_encrypted as Uint8Array) }
}

/** Whether some tenant configured this verify token (the GET handshake names no phone number). */
export const whatsAppVerifyTokenKnown = async (sql: Sql, token: string): Promise<boolean> => {
  const rows = await sql`SELECT 1 FROM channel_whatsapp WHERE verify_token_sha256 = ${verifyTokenDigest(token)} LIMIT 1`
  return rows.length > 0
}
