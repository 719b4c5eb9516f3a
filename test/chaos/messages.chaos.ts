import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { e164 } from "../support/fixtures.ts"
import { configureChannels, newWhatsAppNumber, send, TEMPLATES, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { startSmtpSink, type SmtpSink } from "../support/smtpSink.ts"
import { startWhatsAppStub, type WhatsAppStub } from "../support/whatsappStub.ts"
import { FULL } from "./load.ts"

// Workers die (SIGKILL, injected) between recording a send attempt and calling the provider, or right after the
// provider answered; a supervisor respawns them. Every send must reach its provider exactly once.
const key = useEncryptionKey()
const number = newWhatsAppNumber()
let sink: SmtpSink
let stub: WhatsAppStub
let ingress: RunningPlatform
let tenant: TestTenant
const sql = testSql()

const SEND_ENV = { GEP_SEND_TIMEOUT_MS: "2000", GEP_WHATSAPP_RECONCILE_MS: "3000", GEP_SEND_BACKOFF_MS: "200" }

beforeAll(async () => {
  sink = await startSmtpSink()
  stub = await startWhatsAppStub({
    numbers: [{ ...number, templates: TEMPLATES.map((t) => ({ name: t.name, language: t.language, bodyParameters: t.bodyParameters, category: t.category })) }],
    autoStatuses: ["sent"]
  })
  Object.assign(process.env, SEND_ENV, { GEP_SMTP_URL: sink.url, GEP_WHATSAPP_API_URL: stub.baseUrl })
  ingress = await startPlatform("chaos_messages", { role: "ingress", overrides: { partitions: 4, leaseTtlMs: 2_000, ackWaitMs: 2_000 } })
  stub.setWebhookUrl(`${ingress.baseUrl}/api/webhooks/whatsapp`)
  tenant = await createTenant("chaos-msg")
  await configureChannels(sql, key, tenant, { email: { from_address: "stay@hotelexample.com" }, whatsapp: number })
})
afterAll(async () => {
  await ingress?.stop()
  await stub?.close()
  await sink?.close()
  await sql.end()
})

/** Workers that die by the injected fault, respawned as soon as they are gone, until stopped. */
const supervise = async (count: number, env: Record<string, string>) => {
  const workers: Array<WorkerProcess> = await Promise.all(Array.from({ length: count }, () => spawnWorker(ingress.config, { ...SEND_ENV, ...env })))
  let deaths = 0
  let stopping = false
  const loop = (async () => {
    while (!stopping) {
      await new Promise((r) => setTimeout(r, 100))
      for (let i = 0; i < workers.length && !stopping; i++) {
        if (workers[i]!.child.exitCode === null && workers[i]!.child.signalCode === null) continue
        deaths++
        workers[i] = await spawnWorker(ingress.config, { ...SEND_ENV, ...env })
      }
    }
  })()
  return {
    deaths: () => deaths,
    stop: async () => {
      stopping = true
      await loop
      // The last workers run without faults only if they never die; stop them all.
      await Promise.all(workers.map((w) => w.stop()))
    }
  }
}

const contacts = async (n: number, label: string) => {
  const guests = Array.from({ length: n }, (_, i) => ({ phone: e164(40_000_000 + i + Math.floor(Math.random() * 1_000_000) * 100), first_name: "C", last_name: `${label}${i}`, email: `${label}${i}.${Date.now()}@gmail.com` }))
  const res = await post(ingress.baseUrl, "/api/v1/guests/batch", tenant.live_key, { guests })
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200)
  return res.body.data.results.map((r: any) => r.data.contact_id as string) as Array<string>
}

const waitSettled = async (ids: ReadonlyArray<string>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [row] = await sql`SELECT count(*)::int AS n FROM messages WHERE id = ANY(${ids as Array<string>}::uuid[]) AND status IN ('sent', 'delivered', 'read')`
    if (row!.n === ids.length || Date.now() > deadline) return row!.n as number
    await new Promise((r) => setTimeout(r, 250))
  }
}

describe("messages with workers killed around the provider call", () => {
  it("killed between recording and sending: every email and every WhatsApp send leaves exactly once", async () => {
    const n = FULL ? 200 : 40
    const workers = await supervise(2, { GEP_FAULT_CRASH_BEFORE_SEND: "0.04" })
    const ids = await contacts(n, "before")
    const answers = await Promise.all(ids.flatMap((id) => [
      send(ingress.baseUrl, tenant.live_key, { contact_id: id, channel: "email", category: "utility", subject: "Your stay", text: "Hello" }),
      send(ingress.baseUrl, tenant.live_key, { contact_id: id, channel: "whatsapp", template: { name: "booking_confirmation", language: "es", parameters: ["A", "B"] } })
    ]))
    expect(answers.filter((a) => a.status !== 202)).toEqual([])
    const messageIds = answers.map((a) => a.body.data.message_id as string)
    const settled = await waitSettled(messageIds, FULL ? 240_000 : 120_000)
    await workers.stop()
    await stub.settled()
    const emailIds = answers.filter((_, i) => i % 2 === 0).map((a) => a.body.data.message_id as string)
    const waIds = answers.filter((_, i) => i % 2 === 1).map((a) => a.body.data.message_id as string)
    const byMessageId = sink.countByMessageId()
    const emails = emailIds.map((id) => byMessageId.get(`<${id}@hotelexample.com>`) ?? 0)
    const calls = waIds.map((id) => stub.countByCallbackData().get(id) ?? 0)
    console.log(JSON.stringify({ chaos: "messages-before-send", sends: messageIds.length, deaths: workers.deaths(), settled, emails: emails.reduce((a, b) => a + b, 0), whatsapp: calls.reduce((a, b) => a + b, 0) }))
    expect(settled).toBe(messageIds.length)
    expect(workers.deaths()).toBeGreaterThan(0)
    expect(emails.filter((c) => c !== 1)).toEqual([])
    expect(calls.filter((c) => c !== 1)).toEqual([])
  })

  it("killed after WhatsApp took the message: the status webhook settles it and nothing is sent twice", async () => {
    const n = FULL ? 100 : 20
    const workers = await supervise(2, { GEP_FAULT_CRASH_AFTER_SEND: FULL ? "0.05" : "0.1" })
    const ids = await contacts(n, "after")
    const answers = await Promise.all(ids.map((id) =>
      send(ingress.baseUrl, tenant.live_key, { contact_id: id, channel: "whatsapp", template: { name: "booking_confirmation", language: "es", parameters: ["A", "B"] } })))
    expect(answers.filter((a) => a.status !== 202)).toEqual([])
    const messageIds = answers.map((a) => a.body.data.message_id as string)
    const settled = await waitSettled(messageIds, FULL ? 240_000 : 120_000)
    // Past the reconcile window: a redelivered command of a settled message must find it settled.
    await new Promise((r) => setTimeout(r, 8_000))
    await workers.stop()
    await stub.settled()
    const calls = messageIds.map((id) => stub.countByCallbackData().get(id) ?? 0)
    console.log(JSON.stringify({ chaos: "messages-after-send", sends: messageIds.length, deaths: workers.deaths(), settled, whatsapp: calls.reduce((a, b) => a + b, 0) }))
    expect(settled).toBe(messageIds.length)
    expect(calls.filter((c) => c !== 1)).toEqual([])
  })
})
