import { expect } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import type postgres from "postgres"
import { encryptChannelSecret, verifyTokenDigest } from "../../core/channel/repository.ts"
import { e164 } from "./fixtures.ts"
import { createTenant, post, request, type RunningPlatform, startPlatform, type TestTenant } from "./platform.ts"
import { type SmtpSink, startSmtpSink } from "./smtpSink.ts"

/** The at-rest key of this test process: channel secrets are encrypted with it, the platform decrypts with it. */
export const useEncryptionKey = (): Buffer => {
  const key = randomBytes(32)
  process.env.GEP_WEBHOOK_ENCRYPTION_KEY = key.toString("base64")
  return key
}

export interface WhatsAppNumber {
  readonly phoneNumberId: string
  readonly accessToken: string
  readonly appSecret: string
  readonly verifyToken: string
}

export const newWhatsAppNumber = (): WhatsAppNumber => ({
  phoneNumberId: String(100_000_000_000 + Math.floor(Math.random() * 800_000_000_000)),
  accessToken: `EAAG${randomBytes(12).toString("hex")}`,
  appSecret: randomBytes(16).toString("hex"),
  verifyToken: randomBytes(8).toString("hex")
})

export const TEMPLATES = [
  { name: "booking_confirmation", language: "es", category: "utility", bodyParameters: 2 },
  { name: "spring_offer", language: "es", category: "marketing", bodyParameters: 1 },
  { name: "login_code", language: "en", category: "authentication", bodyParameters: 1 }
] as const

/** Writes a tenant's channel configuration as the channel API stores it (the send path's side is what is tested here). */
export const configureChannels = async (
  sql: postgres.Sql, key: Buffer, tenant: TestTenant,
  o: { email?: { from_address: string; from_name?: string; reply_to?: string; hotel_overrides?: Record<string, Record<string, string>>; rate?: number }; whatsapp?: WhatsAppNumber; sandbox?: boolean }
) => {
  const scope = { tenant_id: tenant.tenant_id, sandbox: o.sandbox ?? false }
  if (o.email) {
    await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address, from_name, reply_to, hotel_overrides, send_rate_per_minute)
      VALUES (${scope.tenant_id}, ${scope.sandbox}, ${o.email.from_address}, ${o.email.from_name ?? null}, ${o.email.reply_to ?? null},
        ${sql.json(o.email.hotel_overrides ?? {})}, ${o.email.rate ?? null})`
  }
  if (o.whatsapp) {
    const w = o.whatsapp
    await sql`INSERT INTO channel_whatsapp (tenant_id, sandbox, phone_number_id, access_token_encrypted, app_secret_encrypted, verify_token_sha256)
      VALUES (${scope.tenant_id}, ${scope.sandbox}, ${w.phoneNumberId}, ${encryptChannelSecret(key, scope, "access_token", w.accessToken)},
        ${encryptChannelSecret(key, scope, "app_secret", w.appSecret)}, ${verifyTokenDigest(w.verifyToken)})`
    for (const t of TEMPLATES) {
      await sql`INSERT INTO whatsapp_templates (tenant_id, sandbox, name, language, category, body_parameters)
        VALUES (${scope.tenant_id}, ${scope.sandbox}, ${t.name}, ${t.language}, ${t.category}, ${t.bodyParameters})`
    }
  }
}

export interface MailingPlatform {
  readonly sink: SmtpSink
  readonly platform: RunningPlatform
  /** A tenant whose email channel sends from stay@hotelexample.com ("Hotel Example"). */
  readonly tenant: TestTenant
  readonly stop: () => Promise<void>
}

/**
 * A platform whose email leaves through a real SMTP server (the sink), with `env` set first (timers, retries), and a
 * tenant with an email channel: the start of every test that follows a message to a guest's inbox.
 */
export const startMailingPlatform = async (sql: postgres.Sql, key: Buffer, name: string, env: Record<string, string> = {}): Promise<MailingPlatform> => {
  const sink = await startSmtpSink()
  Object.assign(process.env, { GEP_SMTP_URL: sink.url, ...env })
  const platform = await startPlatform(name)
  const tenant = await createTenant(name)
  await configureChannels(sql, key, tenant, { email: { from_address: "stay@hotelexample.com", from_name: "Hotel Example" } })
  return { sink, platform, tenant, stop: async () => {
    await platform.stop()
    await sink.close()
  } }
}

let n = Math.floor(Math.random() * 10_000_000)

/** A guest contact through the guests API, with the consents given. */
export const newContact = async (baseUrl: string, tenant: TestTenant, o: { email?: string | null; phone?: boolean; email_consent?: boolean; whatsapp_marketing_consent?: boolean } = {}) => {
  n++
  const phone = e164(70_000_000 + n)
  const body: Record<string, unknown> = {
    phone, first_name: "Ana", last_name: `Guest${n}`,
    ...(o.email === null ? {} : { email: o.email ?? `guest${n}@gmail.com` }),
    email_consent: o.email_consent ?? false,
    whatsapp_marketing_consent: o.whatsapp_marketing_consent ?? false
  }
  const res = await post(baseUrl, "/api/v1/guests", tenant.live_key, body)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return { id: res.body.data.contact_id as string, phone, email: (body.email as string | undefined) ?? null }
}

export const send = (baseUrl: string, key: string, body: Record<string, unknown>, idempotencyKey?: string) =>
  fetch(`${baseUrl}/api/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
    body: JSON.stringify(body)
  }).then(async (r) => ({ status: r.status, body: await r.json() as any }))

export const messagesOf = async (baseUrl: string, key: string, contactId: string) => {
  const res = await request(baseUrl, "GET", `/api/v1/contacts/${contactId}/messages`, { key })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data.messages as Array<any>
}
