import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { e164 } from "../support/fixtures.ts"
import { createJourney } from "../support/journeys.ts"
import { configureChannels, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { killOneEvery, spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { startSmtpSink, type SmtpSink } from "../support/smtpSink.ts"
import { FULL } from "./load.ts"

// Journeys under worker deaths: runs wait (durable timers) and send (through messaging) while one of three workers is
// SIGKILLed every 2 s and replaced. Every run must end exactly once and every step's email must leave, once.
const key = useEncryptionKey()
let sink: SmtpSink
let ingress: RunningPlatform
let tenant: TestTenant
const sql = testSql()
// A send timeout long enough that a loaded machine rarely times out a mail the SMTP server is taking (an ambiguous
// outcome, repeated), short enough that an attempt killed mid-way is repeated within seconds.
const ENV = { GEP_JOURNEY_TIMER_MS: "200", GEP_SEND_BACKOFF_MS: "200", GEP_SEND_TIMEOUT_MS: "8000" }

beforeAll(async () => {
  sink = await startSmtpSink()
  Object.assign(process.env, ENV, { GEP_SMTP_URL: sink.url })
  ingress = await startPlatform("chaos_journeys", { role: "ingress", overrides: { partitions: 4, leaseTtlMs: 2_000, ackWaitMs: 2_000 } })
  tenant = await createTenant("chaos-journeys")
  await configureChannels(sql, key, tenant, { email: { from_address: "stay@hotelexample.com" } })
})
afterAll(async () => {
  await ingress?.stop()
  await sink?.close()
  await sql.end()
})

const retrying = async (f: () => Promise<{ status: number; body: any }>) => {
  for (let attempt = 1; ; attempt++) {
    const res = await f().catch(() => ({ status: 0, body: undefined as any }))
    if ((res.status >= 200 && res.status < 300) || attempt >= 30 || (res.status >= 400 && res.status < 500)) return res
    await new Promise((r) => setTimeout(r, 500))
  }
}

const contacts = async (n: number): Promise<Array<string>> => {
  const ids: Array<string> = []
  for (let start = 0; start < n; start += 250) {
    const guests = Array.from({ length: Math.min(250, n - start) }, (_, k) => {
      const i = start + k
      return { phone: e164(50_000_000 + i + Math.floor(Math.random() * 1_000_000) * 1_000), first_name: "J", last_name: `Run${i}`, email: `run${i}.${Date.now()}@gmail.com` }
    })
    const res = await retrying(() => post(ingress.baseUrl, "/api/v1/guests/batch", tenant.live_key, { guests }))
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200)
    const refused = res.body.data.results.filter((r: any) => r.data?.contact_id === undefined)
    expect(refused.slice(0, 3)).toEqual([])
    ids.push(...res.body.data.results.map((r: any) => r.data.contact_id as string))
  }
  return ids
}

describe("journeys with workers SIGKILLed while runs wait and send", () => {
  it("every run ends exactly once; every step's email leaves, none lost, none recorded twice", async () => {
    const n = FULL ? 1_000 : 100
    const journeyId = await createJourney(sql, tenant, {
      name: "Chaos", trigger: { type: "event", event: "chaos.entered" },
      steps: [
        { id: "w1", type: "wait", duration: "PT2S" },
        { id: "first", type: "email", category: "utility", subject: "First {{contact_last_name}}", text: "one" },
        { id: "w2", type: "wait", duration: "PT2S" },
        { id: "second", type: "email", category: "utility", subject: "Second {{contact_last_name}}", text: "two" }
      ]
    })
    const workers: Array<WorkerProcess> = await Promise.all([0, 1, 2].map(() => spawnWorker(ingress.config, ENV)))
    const ids = await contacts(n)
    const killer = killOneEvery(workers, 2_000, () => spawnWorker(ingress.config, ENV))
    const started = Date.now()
    // Events sent while workers die: a 503 (not confirmed in time) is retried with the same idempotency key.
    let next = 0
    const answers: Array<number> = []
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < ids.length) {
        const id = ids[next++]!
        const res = await retrying(() => post(ingress.baseUrl, "/api/v1/events", tenant.live_key, {
          event_type: "chaos.entered", contact_id: id, idempotency_key: `chaos-${id}`, payload: {}
        }))
        answers.push(res.status)
      }
    }))
    const deadline = Date.now() + (FULL ? 420_000 : 180_000)
    let completed = 0
    let sent = 0
    // Workers keep dying until every run has ended and every email has left.
    while (Date.now() < deadline) {
      const [row] = await sql`
        SELECT (SELECT count(*)::int FROM journey_runs WHERE journey_id = ${journeyId} AND state = 'completed') AS completed,
          (SELECT count(*)::int FROM messages m JOIN journey_runs r ON r.id = m.journey_run_id
            WHERE r.journey_id = ${journeyId} AND m.status = 'sent') AS sent`
      completed = row!.completed as number
      sent = row!.sent as number
      if (completed >= n && sent >= 2 * n) break
      await new Promise((r) => setTimeout(r, 500))
    }
    await killer.stop()
    const kills = killer.kills()
    // Redeliveries the killed workers left behind must change nothing: give them time, then stop the survivors.
    await new Promise((r) => setTimeout(r, 6_000))
    await Promise.all(workers.map((w) => w.stop()))
    const seconds = (Date.now() - started) / 1000

    const runs = await sql`SELECT contact_id, state, steps_taken FROM journey_runs WHERE journey_id = ${journeyId}`
    const messages = await sql`SELECT m.id, m.status, m.attempts FROM messages m JOIN journey_runs r ON r.id = m.journey_run_id WHERE r.journey_id = ${journeyId}`
    const byMessageId = sink.countByMessageId()
    const caught = messages.map((m) => byMessageId.get(`<${m.id}@hotelexample.com>`) ?? 0)
    const repeated = caught.filter((c) => c > 1).length
    console.log(JSON.stringify({
      chaos: "journeys", runs: n, seconds, kills, completed, sent, messages: messages.length,
      mails: caught.reduce((a, b) => a + b, 0), resentSameMessageId: repeated
    }))
    expect(answers.filter((s) => s !== 201 && s !== 200)).toEqual([])
    expect(kills).toBeGreaterThanOrEqual(FULL ? 5 : 2)
    // One run per contact, each ended once, completed with its four steps.
    expect(runs.length).toBe(n)
    expect(new Set(runs.map((r) => r.contact_id)).size).toBe(n)
    expect(runs.filter((r) => r.state !== "completed" || r.steps_taken !== 4)).toEqual([])
    const [ended] = await sql`SELECT count(*)::int AS n FROM journey_run_steps s JOIN journey_runs r ON r.id = s.run_id WHERE r.journey_id = ${journeyId}`
    expect(ended!.n).toBe(4 * n)
    // Two messages per run (deterministic ids: a redelivered step lands on the same row), every one sent and caught.
    expect(messages.length).toBe(2 * n)
    expect(messages.filter((m) => m.status !== "sent")).toEqual([])
    expect(caught.filter((c) => c === 0)).toEqual([])
    // An email whose worker died after the SMTP server accepted it and before the outcome was recorded is sent again,
    // as the same message with the same Message-ID (the receiver's duplicate key): a recorded repeated attempt, never
    // a second message.
    expect(messages.filter((m, i) => caught[i]! > 1 && m.attempts < caught[i]!)).toEqual([])
  })
})
