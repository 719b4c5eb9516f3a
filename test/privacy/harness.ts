import { Effect, Layer, ManagedRuntime } from "effect"
import { randomBytes } from "node:crypto"
import postgres from "postgres"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Tenancy } from "../../src/tenancy/Tenancy.ts"
import { e164 } from "../support/fixtures.ts"
import { makeCertificate, type Receiver, startReceiver, trustForThisProcess } from "../support/httpsReceiver.ts"
import { configureChannels, newWhatsAppNumber, useEncryptionKey, type WhatsAppNumber } from "../support/messaging.ts"
import { ownDatabase } from "../support/ownDatabase.ts"
import { type RunningPlatform, startPlatform, testConfig, type TestTenant } from "../support/platform.ts"
import { type SmtpSink, startSmtpSink } from "../support/smtpSink.ts"

// The privacy tests' world: people whose identifiers and names exist nowhere else, and a platform on a database of the
// test file's own (so a scan of the whole database reads only what the file wrote), with an SMTP sink, an HTTPS
// webhook receiver, a CTI integration and a tenant with email and WhatsApp channels.

export interface Person {
  readonly email: string
  /** E.164. */
  readonly phone: string
  readonly first_name: string
  readonly last_name: string
}

/** Six random lower-case letters. */
export const letters = () => Array.from(randomBytes(6), (b) => String.fromCharCode(97 + (b % 26))).join("")

/** A person whose every identifier and name is unique to this run (a scan finds only what was written for them). */
export const newPerson = (first: string, last: string): Person => {
  const tag = letters()
  const first_name = `${first}${tag}`
  const last_name = `${last}${tag}`
  return { first_name, last_name, email: `${first_name}.${last_name}@gmail.com`.toLowerCase(), phone: e164(Math.floor(Math.random() * 80_000_000)) }
}

export interface PrivacyHarness {
  readonly platform: RunningPlatform
  /** The file's own database (its owner role). */
  readonly sql: postgres.Sql
  readonly tenant: TestTenant
  readonly sink: SmtpSink
  readonly receiver: Receiver
  readonly whatsapp: WhatsAppNumber
  readonly ctiToken: string
  /** A key of the tenant holding privacy:write (which `*` does not grant). */
  readonly privacyKey: string
  readonly encryptionKey: Buffer
  readonly stop: () => Promise<void>
}

/** A platform on a database of its own, an SMTP sink, an HTTPS webhook receiver and a tenant with email and WhatsApp. */
export const startPrivacyHarness = async (name: string): Promise<PrivacyHarness> => {
  const encryptionKey = useEncryptionKey()
  process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
  process.env.GEP_SSO_CODES_PER_IP_PER_MINUTE = "100000"
  const own = await ownDatabase(name.replace(/\W/g, "_"))
  const sql = postgres(own.url, { max: 3, onnotice: () => {} })
  const sink = await startSmtpSink()
  process.env.GEP_SMTP_URL = sink.url
  const cert = makeCertificate()
  trustForThisProcess(cert)
  const receiver = await startReceiver(cert)
  const platform = await startPlatform(name, { overrides: { databaseUrl: own.url } })
  const admin = ManagedRuntime.make(Tenancy.layer.pipe(
    Layer.provideMerge(Database.layer),
    Layer.provide(Layer.succeed(AppConfig, AppConfig.of(testConfig(`${name}-admin`, { databaseUrl: own.url }))))
  ))
  const { tenant, ctiToken, privacyKey } = await admin.runPromise(Effect.gen(function*() {
    const tenancy = yield* Tenancy
    const t = yield* tenancy.createTenant(`Tenant ${name} ${letters()}`)
    const hotel_code = `H-${letters()}`
    const hotel_name = `Hotel ${letters()}`
    const h = yield* tenancy.createHotel(t.tenant_id, { code: hotel_code, name: hotel_name, timezone: "Europe/Madrid" })
    const cti = yield* tenancy.createCtiIntegration(t.tenant_id, "aircall")
    const privacy = yield* tenancy.createKey(t.tenant_id, ["*", "privacy:write"], false)
    return { tenant: { ...t, hotel_id: h.hotel_id, hotel_code, hotel_name }, ctiToken: cti.token, privacyKey: privacy.key }
  })).finally(() => admin.dispose())
  const whatsapp = newWhatsAppNumber()
  await configureChannels(sql, encryptionKey, tenant, {
    email: { from_address: "stay@hotelexample.com", from_name: "Hotel Example" }, whatsapp
  })
  return {
    platform, sql, tenant, sink, receiver, whatsapp, ctiToken, privacyKey, encryptionKey,
    stop: async () => {
      await platform.stop()
      await receiver.close().catch(() => undefined)
      await sink.close()
      await sql.end()
      await own.drop()
    }
  }
}
