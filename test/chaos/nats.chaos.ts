import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { createKey, createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { FULL, runLoad } from "./load.ts"
import { services } from "./services.ts"

let platform: RunningPlatform | undefined
let tenant: TestTenant
let urls: string
const sql = testSql()
const DATA = fileURLToPath(new URL("../../.data/", import.meta.url))

beforeAll(async () => {
  urls = (await services("cluster-up")).split("\n").pop()!
  tenant = await createTenant("chaos-nats")
})
afterAll(async () => {
  await platform?.stop()
  await services("cluster-down").catch(() => undefined)
  await sql.end()
})

describe("a 3-node JetStream cluster losing a node during load", () => {
  it("loses no acknowledged envelope (streams at replicas 3)", async () => {
    platform = await startPlatform("chaos_nats", { overrides: { natsUrl: urls, streamReplicas: 3, replyTimeoutMs: 5_000, partitions: 2 } })
    const key = (await createKey(tenant.tenant_id, ["*"], { rate: 10_000_000 })).key
    let killed = ""
    const kill = (async () => {
      await new Promise((r) => setTimeout(r, 2_000))
      const node = 1 + Math.floor(Math.random() * 3)
      const pid = Number(readFileSync(`${DATA}nats-cluster-n${node}.pid`, "utf8").trim())
      process.kill(pid, "SIGKILL")
      killed = `n${node}`
    })()
    const load = await runLoad(platform.baseUrl, key, tenant.hotel_code, { ids: 100, total: FULL ? 5_000 : 800, concurrency: 32, prefix: "nats", until: kill })
    await kill
    console.log(JSON.stringify({ chaos: "nats", killed, answered2xx: load.answered2xx, retried503: load.answered503, other: load.other }))
    expect(killed).not.toBe("")
    expect(load.other).toEqual([])
    expect(load.missingRetryAfter).toBe(0)
    const rows = await sql`SELECT external_id, amount::int AS amount FROM reservations WHERE tenant_id = ${tenant.tenant_id}`
    const stored = new Map(rows.map((r) => [r.external_id as string, r.amount as number]))
    expect([...load.lastAcked].filter(([id, v]) => stored.get(id) !== v)).toEqual([])
    expect(rows.length).toBe(100)
  })
})
