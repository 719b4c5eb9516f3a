import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { insertContact, insertJourney, insertRun } from "../support/consoleRows.ts"
import { createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// GET /api/v1/journeys: each journey carries its runs' counts by where they are now, for the whole page in one query.
let platform: RunningPlatform
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("jcounts")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const journeys = async (t: TestTenant, query = "") => {
  const res = await request(platform.baseUrl, "GET", `/api/v1/journeys${query}`, { key: t.live_key })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data as { journeys: Array<{ journey_id: string; counts: Record<string, number> }>; next_cursor: string | null }
}

describe("journey counts", () => {
  it("counts entered, waiting, completed, stopped and failed runs of each journey, zeros for one without runs", async () => {
    const t = await createTenant("jcounts")
    const s = { tenant_id: t.tenant_id }
    const created = await post(platform.baseUrl, "/api/v1/journeys", t.live_key, {
      name: "Pre-arrival", trigger: { type: "event", event: "booking.created" }, steps: [{ id: "w", type: "wait", duration: "PT1H" }]
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const fresh = created.body.data.journey_id as string
    const busy = await insertJourney(sql, s)
    for (const state of ["waiting", "waiting", "active", "completed", "completed", "completed", "stopped", "failed"]) {
      await insertRun(sql, s, { journey_id: busy, contact_id: await insertContact(sql, s), state })
    }
    const page = await journeys(t)
    const byId = new Map(page.journeys.map((j) => [j.journey_id, j.counts]))
    expect(byId.get(busy)).toEqual({ entered: 8, waiting: 3, completed: 3, stopped: 1, failed: 1 })
    expect(byId.get(fresh)).toEqual({ entered: 0, waiting: 0, completed: 0, stopped: 0, failed: 0 })
  })

  it("keeps the counts on every page and never counts another tenant's runs", async () => {
    const t = await createTenant("jcounts-p")
    const other = await createTenant("jcounts-o")
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const id = await insertJourney(sql, { tenant_id: t.tenant_id })
      await insertRun(sql, { tenant_id: t.tenant_id }, { journey_id: id, contact_id: await insertContact(sql, { tenant_id: t.tenant_id }), state: "waiting" })
      ids.push(id)
    }
    // Another tenant's journey and runs: never in this tenant's list, never in its counts.
    const theirs = await insertJourney(sql, { tenant_id: other.tenant_id })
    await insertRun(sql, { tenant_id: other.tenant_id }, { journey_id: theirs, contact_id: await insertContact(sql, { tenant_id: other.tenant_id }) })
    const first = await journeys(t, "?limit=2")
    const second = await journeys(t, `?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`)
    const all = [...first.journeys, ...second.journeys]
    expect(all.map((j) => j.journey_id).sort()).toEqual([...ids].sort())
    for (const j of all) expect(j.counts).toEqual({ entered: 1, waiting: 1, completed: 0, stopped: 0, failed: 0 })
    expect((await journeys(other)).journeys.map((j) => j.counts.entered)).toEqual([1])
  })
})
