import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation } from "../support/fixtures.ts"
import { createTenant, request, startPlatform, testSql, type HttpResult, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// A limit pinned at 4 calls (2 per tenant), so a handful of concurrent requests overload it deterministically.
const PINNED = { GEP_ADMISSION_INITIAL: "4", GEP_ADMISSION_MIN: "4", GEP_ADMISSION_MAX: "4", GEP_ADMISSION_TENANT_SHARE: "0.5" }
const sql = testSql()
let platform: RunningPlatform
let a: TestTenant
let b: TestTenant

beforeAll(async () => {
  Object.assign(process.env, PINNED)
  platform = await startPlatform("admission")
  ;[a, b] = await Promise.all([createTenant("shedA"), createTenant("shedB")])
}, 60_000)
afterAll(async () => {
  for (const name of Object.keys(PINNED)) delete process.env[name]
  await platform?.stop()
  await sql.end()
})

const send = (t: TestTenant, body: Record<string, unknown>) => request(platform.baseUrl, "POST", "/api/v1/reservations", { key: t.live_key, body })
const stored = async (t: TestTenant, ids: ReadonlyArray<string>) =>
  (await sql`SELECT external_id FROM reservations WHERE tenant_id = ${t.tenant_id} AND external_id = ANY(${ids as Array<string>})`).map((r) => r.external_id as string)

describe("load shedding at the ingress", () => {
  it("beyond the limit a write is answered 503 with Retry-After at once, and nothing of it is stored; every 201 is stored", async () => {
    const bodies = Array.from({ length: 40 }, () => reservation({ hotel_code: a.hotel_code }))
    const answers = await Promise.all(bodies.map((body) => send(a, body)))
    const shed = answers.flatMap((r, i) => r.status === 503 ? [{ r, id: bodies[i]!.reservation_id as string }] : [])
    const accepted = answers.flatMap((r, i) => r.status === 201 ? [bodies[i]!.reservation_id as string] : [])
    expect(shed.length).toBeGreaterThan(0)
    expect(accepted.length + shed.length).toBe(40)
    for (const { r } of shed) {
      expect(r.headers.get("retry-after")).toBe("2")
      expect(r.body.error).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { retry_after_seconds: 2 } })
    }
    expect((await stored(a, accepted)).sort()).toEqual([...accepted].sort())
    // Anything queued would have been applied by now (a write is confirmed within a second here).
    await new Promise((r) => setTimeout(r, 1_500))
    expect(await stored(a, shed.map((s) => s.id))).toEqual([])
    // Retried, each shed request goes through (nothing of it was stored, so it is created now).
    for (const { id } of shed.slice(0, 3)) expect((await send(a, bodies.find((x) => x.reservation_id === id)!)).status).toBe(201)
  })

  it("a tenant arriving during another's burst is let in: all its requests go through while the burst is refused beyond its share", async () => {
    let flooding = true
    const flood = (async () => {
      const statuses: Array<number> = []
      while (flooding) statuses.push(...(await Promise.all(Array.from({ length: 12 }, () => send(a, reservation({ hotel_code: a.hotel_code }))))).map((r) => r.status))
      return statuses
    })()
    const others: Array<HttpResult> = []
    for (let i = 0; i < 10; i++) others.push(await send(b, reservation({ hotel_code: b.hotel_code })))
    flooding = false
    const floodStatuses = await flood
    expect(floodStatuses).toContain(503)
    expect(others.map((r) => r.status)).toEqual(Array(10).fill(201))
  })

  it("a request is admitted or refused whole: a batch of 20 items on an idle platform is applied entirely", async () => {
    const items = Array.from({ length: 20 }, () => reservation({ hotel_code: a.hotel_code }))
    const res = await request(platform.baseUrl, "POST", "/api/v1/reservations/batch", { key: a.live_key, body: { reservations: items } })
    expect(res.status).toBe(200)
    expect(res.body.data.results.map((r: { status: number }) => r.status)).toEqual(Array(20).fill(201))
  })

  it("reads are not shed, and /metrics counts what was", async () => {
    const reads = await Promise.all(Array.from({ length: 20 }, () => request(platform.baseUrl, "GET", "/api/v1/reservations?limit=5", { key: a.live_key })))
    expect(reads.map((r) => r.status)).toEqual(Array(20).fill(200))
    const metrics = await (await fetch(`${platform.baseUrl}/metrics`)).text()
    expect(metrics).toMatch(/gep_requests_shed_total\{where="(edge|call)",reason="(process|tenant)"\} [1-9]/)
    expect(metrics).toContain('gep_admission{measure="limit"} 4')
  })
})
