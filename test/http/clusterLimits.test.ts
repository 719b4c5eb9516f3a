import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createCtiIntegration, createKey, createTenant, post, request, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// Two ingress "processes" (each with its own limiter) in front of the same platform.
let a: RunningPlatform
let b: RunningPlatform
let tenant: TestTenant
beforeAll(async () => {
  a = await startPlatform("limits", { overrides: { telephonyRateLimitPerMinute: 20 } })
  b = await startPlatform("limits", { role: "ingress", overrides: { telephonyRateLimitPerMinute: 20 } })
  tenant = await createTenant("limits")
})
afterAll(async () => {
  await b?.stop()
  await a?.stop()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The limits count per clock minute: a test that straddles a minute's end would see two budgets. */
const clearOfMinuteEnd = async (needMs: number) => {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < needMs) await sleep(left + 100)
}

describe("rate limits across ingress processes", () => {
  it("a key's per-minute limit holds across two ingress processes (within one sync interval)", async () => {
    const key = (await createKey(tenant.tenant_id, ["*"], { rate: 20 })).key
    await clearOfMinuteEnd(20_000)
    const statuses: Array<number> = []
    for (let i = 0; i < 12; i++) statuses.push((await request(a.baseUrl, "GET", "/api/v1/reservations/x", { key })).status)
    await sleep(1_200) // both processes sync every 500 ms
    for (let i = 0; i < 12; i++) statuses.push((await request(b.baseUrl, "GET", "/api/v1/reservations/x", { key })).status)
    const allowed = statuses.filter((s) => s === 404).length
    expect(statuses.filter((s) => s !== 404 && s !== 429)).toEqual([])
    expect(allowed).toBe(20)
    expect(statuses.slice(0, 12).every((s) => s === 404)).toBe(true)
  })

  it("the per-tenant telephony limit holds across both too", async () => {
    const token = (await createCtiIntegration(tenant.tenant_id, "aircall")).token
    await clearOfMinuteEnd(20_000)
    const statuses: Array<number> = []
    for (let i = 0; i < 15; i++) statuses.push((await post(a.baseUrl, "/api/webhooks/cti", token, { event_type: "call_missed", call_id: `l${i}` })).status)
    await sleep(1_200)
    for (let i = 0; i < 15; i++) statuses.push((await post(b.baseUrl, "/api/webhooks/cti", token, { event_type: "call_missed", call_id: `m${i}` })).status)
    expect(statuses.filter((s) => s === 201).length).toBe(20)
    expect(statuses.filter((s) => s === 429).length).toBe(10)
  })
})
