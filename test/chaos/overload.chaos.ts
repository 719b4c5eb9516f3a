import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation } from "../support/fixtures.ts"
import { createKey, createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker } from "../support/processes.ts"
import { FULL, type TimedAnswer } from "./load.ts"

// The workers stall (SIGSTOP) under a steady open-loop load: nothing completes, so everything offered is more than the
// platform can take. The ingress must shed (503 + Retry-After at once) instead of queueing writes until their clients
// give up, take writes again once the workers resume, and lose or double nothing it acknowledged.

let ingress: RunningPlatform
let tenant: TestTenant
const sql = testSql()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeAll(async () => {
  // Leases that outlive the stall: the test is about the ingress, not a takeover (the fencing tests cover that).
  ingress = await startPlatform("chaos_overload", { role: "ingress", overrides: { partitions: 8, leaseTtlMs: 15_000 } })
  tenant = await createTenant("chaos-overload")
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

interface Answer extends TimedAnswer {
  readonly message: string
}

describe("workers stalled under an open-loop load", () => {
  it("the ingress sheds at once instead of queueing, takes writes again on resume, and stores every acknowledged write once", async () => {
    const rate = FULL ? 300 : 120
    const seconds = FULL ? 30 : 12
    const stallAt = 3_000, stallMs = 4_000
    const worker = await spawnWorker(ingress.config)
    const key = (await createKey(tenant.tenant_id, ["*"], { rate: 10_000_000 })).key
    const answers: Array<Answer> = []
    const pending: Array<Promise<void>> = []
    const started = performance.now()
    const stall = (async () => {
      await sleep(stallAt)
      worker.child.kill("SIGSTOP")
      await sleep(stallMs)
      worker.child.kill("SIGCONT")
    })()
    try {
      for (let i = 0; i < rate * seconds; i++) {
        const due = started + (i * 1000) / rate
        const wait = due - performance.now()
        if (wait > 1) await sleep(wait)
        const body = reservation({ hotel_code: tenant.hotel_code })
        const at = performance.now() - started
        pending.push(fetch(`${ingress.baseUrl}/api/v1/reservations`, {
          method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(30_000),
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }
        }).then(async (res) => {
          const text = await res.text()
          answers.push({
            id: body.reservation_id, at, ms: performance.now() - started - at, status: res.status, retryAfter: res.headers.get("retry-after"),
            message: res.status === 503 ? (JSON.parse(text) as { error: { message: string } }).error.message : ""
          })
        }))
      }
      await Promise.all(pending)
      await stall
      const ok = answers.filter((a) => a.status === 200 || a.status === 201)
      const unavailable = answers.filter((a) => a.status === 503)
      const shed = unavailable.filter((a) => /capacity|share/.test(a.message))
      const stalled = answers.filter((a) => a.at >= stallAt + 2_000 && a.at < stallAt + stallMs)
      const after = answers.filter((a) => a.at >= stallAt + stallMs + 2_000)
      const max = (xs: ReadonlyArray<Answer>) => Math.round(Math.max(0, ...xs.map((a) => a.ms)))
      console.log(JSON.stringify({
        chaos: "overload", rate, seconds, answers: answers.length, ok: ok.length, shed: shed.length, unavailable: unavailable.length,
        max_ms: max(answers), stalled_max_ms: max(stalled), stalled_shed: stalled.filter((a) => a.status === 503).length, after_ok: after.filter((a) => a.status < 300).length
      }))
      expect(answers.filter((a) => ![200, 201, 503].includes(a.status)).map((a) => a.status)).toEqual([])
      expect(unavailable.filter((a) => a.retryAfter === null)).toEqual([])
      // No request outlived the ingress's own deadline (the reply timeout, 10 s): the longest were admitted as the
      // stall began and waited for the workers to resume.
      expect(max(answers)).toBeLessThan(ingress.config.replyTimeoutMs + 1_000)
      // Two seconds into the stall (nothing answered for a second), every request is turned away at once, not queued.
      expect(stalled.length).toBeGreaterThan(0)
      expect(stalled.filter((a) => a.status !== 503 || a.ms > 1_000)).toEqual([])
      // After the resume (and a moment to recover), writes are taken again.
      expect(after.filter((a) => a.status < 300).length).toBeGreaterThan(after.length / 2)

      await sleep(3_000) // the backlog the stall left is applied
      const stored = new Set((await sql`SELECT external_id FROM reservations WHERE tenant_id = ${tenant.tenant_id}`).map((r) => r.external_id as string))
      expect(ok.filter((a) => !stored.has(a.id)).map((a) => a.id)).toEqual([])
      expect(shed.filter((a) => stored.has(a.id)).map((a) => a.id)).toEqual([])
      const [dups] = await sql`SELECT count(*)::int AS n, count(DISTINCT external_id)::int AS distinct FROM reservations WHERE tenant_id = ${tenant.tenant_id}`
      expect(dups!.n).toBe(dups!.distinct)
    } finally {
      worker.child.kill("SIGCONT")
      await worker.stop()
    }
  }, 300_000)
})
