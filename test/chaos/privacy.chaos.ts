import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import postgres from "postgres"
import { inject } from "vitest"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Tenancy } from "../../src/tenancy/Tenancy.ts"
import { createJourney } from "../support/journeys.ts"
import { configureChannels, useEncryptionKey } from "../support/messaging.ts"
import { ownDatabase } from "../support/ownDatabase.ts"
import { post, request, startPlatform, testConfig, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { startSmtpSink, type SmtpSink } from "../support/smtpSink.ts"
import { eventually } from "../support/webhook.ts"
import { letters, newPerson } from "../privacy/harness.ts"
import { needlesOfPerson, scanDatabase } from "../privacy/scanDatabase.ts"
import { scanStreams } from "../privacy/scanStreams.ts"
import { FULL } from "./load.ts"

// Issue 26's fault test: a guest erased while reservations naming their phone keep arriving (each one starting a
// booking journey that emails the guest) and the worker carrying the erasure is SIGKILLed. Afterwards no row of the
// database and no retained stream message names the guest; a later reservation with that phone creates no contact and
// sends nothing; once unsuppressed, it does both.
const key = useEncryptionKey()
let sink: SmtpSink
let ingress: RunningPlatform
let tenant: TestTenant
let privacyKey: string
let sql: postgres.Sql
let dropDatabase: () => Promise<void>
const WORKER_ENV = { GEP_JOURNEY_TIMER_MS: "200", GEP_SEND_BACKOFF_MS: "200", GEP_SEND_TIMEOUT_MS: "8000" }
const subject = newPerson("Ottoline", "Varga")
/** Concurrent feeders, each posting one reservation after another. */
const FEEDERS = FULL ? 8 : 3

beforeAll(async () => {
  sink = await startSmtpSink()
  Object.assign(process.env, WORKER_ENV, { GEP_SMTP_URL: sink.url })
  const own = await ownDatabase("chaos_privacy")
  dropDatabase = own.drop
  sql = postgres(own.url, { max: 3, onnotice: () => {} })
  ingress = await startPlatform("chaos_privacy", { role: "ingress", overrides: { databaseUrl: own.url, partitions: 4, leaseTtlMs: 2_000, ackWaitMs: 2_000 } })
  const admin = ManagedRuntime.make(Tenancy.layer.pipe(
    Layer.provideMerge(Database.layer),
    Layer.provide(Layer.succeed(AppConfig, AppConfig.of(testConfig("chaos-privacy-admin", { databaseUrl: own.url }))))
  ))
  ;({ tenant, privacyKey } = await admin.runPromise(Effect.gen(function*() {
    const tenancy = yield* Tenancy
    const t = yield* tenancy.createTenant(`Tenant chaos privacy ${letters()}`)
    const h = yield* tenancy.createHotel(t.tenant_id, { code: `H-${letters()}`, name: `Hotel ${letters()}`, timezone: "Europe/Madrid" })
    const k = yield* tenancy.createKey(t.tenant_id, ["*", "privacy:write"], false)
    return { tenant: { ...t, hotel_id: h.hotel_id, hotel_code: "", hotel_name: "" }, privacyKey: k.key }
  })).finally(() => admin.dispose()))
  await configureChannels(sql, key, tenant, { email: { from_address: "stay@hotelexample.com", rate: 100_000_000 } })
  await createJourney(sql, tenant, {
    name: "Welcome", trigger: { type: "event", event: "booking.created" },
    steps: [{ id: "welcome", type: "email", category: "utility", subject: "Welcome {{contact_last_name}}", text: "See you soon" }]
  })
}, 120_000)
afterAll(async () => {
  await ingress?.stop()
  await sink?.close()
  await sql?.end()
  await dropDatabase?.()
})

let n = 0
/** A reservation of the subject with a companion of its own (a new one each time). */
const booking = () => {
  const companion = newPerson("Comp", "Anion")
  return {
    reservation_id: `chaos-privacy-${Date.now()}-${n++}`, hotel_id: tenant.hotel_id, check_in: "2027-03-01", check_out: "2027-03-03",
    guests: [
      { first_name: subject.first_name, last_name: subject.last_name, phone: subject.phone, email: subject.email, is_holder: true },
      { first_name: companion.first_name, last_name: companion.last_name, phone: companion.phone, email: companion.email }
    ]
  }
}

/** Posting reservations until stopped; a 503 (not confirmed in time while a worker is down) is simply the next one's turn. */
const feed = () => {
  let stopping = false
  const answers: Array<number> = []
  const loops = Promise.all(Array.from({ length: FEEDERS }, async () => {
    while (!stopping) {
      const res = await post(ingress.baseUrl, "/api/v1/reservations", tenant.live_key, booking()).catch(() => ({ status: 0 }))
      answers.push(res.status)
    }
  }))
  return { answers, stop: async () => { stopping = true; await loops } }
}

const requestView = async (id: string) =>
  (await request(ingress.baseUrl, "GET", `/api/v1/privacy/requests/${id}`, { key: privacyKey })).body.data as { status: string; results: Array<unknown> }
const mailsTo = (email: string) => sink.mails.filter((m) => m.to.includes(email)).length
const contactOf = async (phone: string) => (await sql`SELECT id FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${phone}`)[0]
const ask = (type: string, subjectField: Record<string, string>) =>
  post(ingress.baseUrl, "/api/v1/privacy/requests", privacyKey, { type, subject: subjectField })

describe("a guest erased while reservations naming them keep arriving and the erasing worker is SIGKILLed", () => {
  it("leaves nothing of the guest in any table or stream, re-creates nothing, and after unsuppress takes them in again", async () => {
    let workers: Array<WorkerProcess> = await Promise.all([0, 1].map(() => spawnWorker(ingress.config, WORKER_ENV)))
    const feeding = feed()
    try {
      // The guest is a contact and has been mailed before the erasure is asked for.
      await eventually("the guest mailed", async () => (mailsTo(subject.email) > 0 ? true : undefined), 90_000)
      const asked = await ask("erase", { phone: `00${subject.phone.slice(1, 3)} ${subject.phone.slice(3)}` })
      expect(asked.status, JSON.stringify(asked.body)).toBe(202)
      const id = asked.body.data.request_id as string

      // Each worker SIGKILLed once while the request runs (one of them holds it); fresh ones take their place.
      await eventually("the erasure running", async () => ((await requestView(id)).status === "running" ? true : undefined), 60_000)
      for (const w of workers) {
        w.child.kill("SIGKILL")
        await w.exited
        workers = [...workers.filter((x) => x !== w), await spawnWorker(ingress.config, WORKER_ENV)]
        await new Promise((r) => setTimeout(r, FULL ? 3_000 : 1_500))
      }
      const done = await eventually("the erasure ended", async () => {
        const view = await requestView(id)
        return ["completed", "partial", "failed"].includes(view.status) ? view : undefined
      }, 240_000)
      expect(done.status, JSON.stringify(done)).toBe("completed")
      // Reservations kept arriving through the whole erasure.
      const during = feeding.answers.length
      await new Promise((r) => setTimeout(r, 3_000))
      expect(feeding.answers.length).toBeGreaterThan(during)
    } finally {
      await feeding.stop()
    }
    expect(feeding.answers.filter((s) => s >= 500 && s !== 503)).toEqual([])

    // Everything in flight settles; then nothing names the guest anywhere.
    const mailedBefore = mailsTo(subject.email)
    await new Promise((r) => setTimeout(r, 8_000))
    const needles = needlesOfPerson(subject)
    const rows = await scanDatabase(sql, needles)
    expect(rows.map((x) => `${x.table}.${x.column} holds ${x.needle} (${x.rows} rows)`)).toEqual([])
    const retained = await scanStreams(inject("natsUrl"), ingress.config.namespace, needles)
    expect(retained.map((x) => `${x.stream} holds ${x.needle} (${x.messages} messages)`)).toEqual([])
    expect(await contactOf(subject.phone)).toBeUndefined()
    // The companions' bookings were kept: many companions, each a contact.
    expect((await sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${tenant.tenant_id}`)[0]!.n).toBeGreaterThan(FEEDERS)

    // A later reservation naming the guest creates no contact and mails nothing.
    const later = await post(ingress.baseUrl, "/api/v1/reservations", tenant.live_key, booking())
    expect(later.status, JSON.stringify(later.body)).toBeLessThan(300)
    expect(later.body.data.warnings.map((w: { code: string }) => w.code)).toContain("subject_suppressed")
    await new Promise((r) => setTimeout(r, 5_000))
    expect(await contactOf(subject.phone)).toBeUndefined()
    expect(mailsTo(subject.email)).toBe(mailedBefore)

    // Lifted (phone and email: a suppression is per identifier), the guest is taken in and mailed again.
    expect((await ask("unsuppress", { phone: subject.phone })).status).toBe(202)
    expect((await ask("unsuppress", { email: subject.email })).status).toBe(202)
    await eventually("the guest taken in again", async () => {
      await post(ingress.baseUrl, "/api/v1/reservations", tenant.live_key, booking())
      return (await contactOf(subject.phone)) ?? undefined
    }, 30_000)
    await eventually("the guest mailed again", async () => (mailsTo(subject.email) > mailedBefore ? true : undefined), 60_000)
    for (const w of workers) w.child.kill("SIGKILL")
  })
})
