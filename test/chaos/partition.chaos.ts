import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { AppConfigShape } from "../../core/config/AppConfig.ts"
import { makeHost, netnsUnavailable, type TestHost } from "../support/netns.ts"
import { createKey, createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnIngress, spawnWorker, type IngressProcess, workerIdOf } from "../support/processes.ts"
import { FULL } from "./load.ts"
import { answeredBy2s, count, liveLeases, load, sleep, storedOnce } from "./partitionLoad.ts"

// Network partitions between the platform's own hosts (test/support/netns.ts): a process in a namespace of the test's
// own, its link to NATS cut while its other links carry on. Skipped, with the reason printed, where namespaces cannot
// be made (not root, no iproute2).
const unavailable = netnsUnavailable()
if (unavailable !== undefined) console.log(`partition fault tests skipped: ${unavailable}`)

let platform: RunningPlatform
let tenant: TestTenant
let key: string
const sql = testSql()
const hosts: Array<TestHost> = []

beforeAll(async () => {
  if (unavailable !== undefined) return
  // An ingress on the machine's network (the one the clients of the second test use), migrations and streams.
  platform = await startPlatform("chaos_partition", { role: "ingress", overrides: { partitions: 8 } })
  tenant = await createTenant("chaos-partition")
  key = (await createKey(tenant.tenant_id, ["*"], { rate: 10_000_000 })).key
})
afterAll(async () => {
  await platform?.stop()
  await Promise.all(hosts.map((h) => h.remove()))
  await sql.end()
})

/** The platform's configuration as seen from a test host: NATS and PostgreSQL through its links. */
const onHost = (host: TestHost, config: AppConfigShape): AppConfigShape => ({ ...config, natsUrl: host.natsUrl, databaseUrl: host.databaseUrl })

type Cut = "nats" | "postgres"

const writer = () => ({ baseUrl: platform.baseUrl, key, hotelCode: tenant.hotel_code })

describe.skipIf(unavailable !== undefined)("network partitions", () => {
  // Full size only (npm run test:chaos): CI's 25 minutes hold the worker case, which found the lease bug.
  it.skipIf(!FULL)("an ingress cut from NATS answers 503 with Retry-After by its deadline, never hangs; writes flow again once healed; nothing acknowledged lost", async () => {
    const host = await makeHost("i", { natsUrl: platform.config.natsUrl, databaseUrl: platform.config.databaseUrl })
    hosts.push(host)
    const worker = await spawnWorker(platform.config)
    const ingress: IngressProcess = await spawnIngress(onHost(host, platform.config), {}, { placement: host.placement })
    // Longer than the reply timeout (10 s), so requests sent into the cut meet the ingress's deadline before it heals.
    const cutAt = 3_000, cutMs = FULL ? 30_000 : 12_000, total = cutAt + cutMs + (FULL ? 15_000 : 7_000)
    try {
      const cutting = (async () => {
        await sleep(cutAt)
        host.cut("nats")
        await sleep(cutMs)
        host.heal("nats")
      })()
      const answers = await load({ ...writer(), baseUrl: ingress.baseUrl }, FULL ? 32 : 8, total)
      await cutting
      // The requests in flight when the link went: they met the ingress's deadline before it healed.
      const waitedOut = answers.filter((a) => a.at < cutAt + 1_000 && a.at + a.ms > cutAt + 1_000)
      // From 3 s after healing (the client reconnects within a second; the requests sent into the cut are settled).
      const after = answers.filter((a) => a.at >= cutAt + cutMs + 3_000)
      const max = Math.round(Math.max(...answers.map((a) => a.ms)))
      console.log(JSON.stringify({
        chaos: "partition ingress-nats", answers: answers.length, statuses: count(answers), max_ms: max,
        waited_out: count(waitedOut), after: count(after)
      }))
      expect(answers.filter((a) => ![200, 201, 503].includes(a.status)).map((a) => a.status)).toEqual([])
      expect(answers.filter((a) => a.status === 503 && a.retryAfter === null)).toEqual([])
      // The deadline: the reply timeout (10 s), plus scheduling slack; no client ever waited out its own 30 s.
      expect(max).toBeLessThan(platform.config.replyTimeoutMs + 2_000)
      expect(waitedOut.length).toBeGreaterThan(0)
      expect(waitedOut.filter((a) => a.status !== 503)).toEqual([])
      expect(after.filter((a) => a.status < 300).length).toBeGreaterThan(after.length / 2)
      await storedOnce(sql, tenant.tenant_id, answers.filter((a) => a.status < 300))
    } finally {
      await ingress.stop()
      await worker.stop()
    }
  }, 300_000)

  // The PostgreSQL case found the lease watchdog (leaseDeadlines.ts): the cut worker's renewal hangs on the dead
  // connection, and without it the worker kept pulling from the consumer its successor had recreated.
  // At full size each cut has a case of its own; at CI size one case cuts a worker from NATS and another from
  // PostgreSQL at once, and a third takes both shares (CI time: one setup and one load instead of two).
  const cases: ReadonlyArray<ReadonlyArray<Cut>> = FULL ? [["nats"], ["postgres"]] : [["nats", "postgres"]]
  for (const peers of cases) {
    const named = peers.map((p) => (p === "nats" ? "NATS" : "PostgreSQL")).join(", another from ")
    it(`a worker cut from ${named} while it holds leases: its partitions move to the other worker, nothing acknowledged is lost or applied twice`, async () => {
      const namespace = platform.config.namespace
      const leasesOf = (owner: string) => liveLeases(sql, namespace, owner)
      const cut = await Promise.all(peers.map(async (peer) => {
        const host = await makeHost(peer === "nats" ? "wn" : "wp", { natsUrl: platform.config.natsUrl, databaseUrl: platform.config.databaseUrl })
        hosts.push(host)
        const worker = await spawnWorker(onHost(host, platform.config), {}, { placement: host.placement })
        return { peer, host, worker, id: workerIdOf(worker.stderr())! }
      }))
      const other = await spawnWorker(platform.config)
      const otherId = workerIdOf(other.stderr())!
      // The cut is noticed in 4-6 s (two unanswered pings) for NATS, at once for PostgreSQL (the lease watchdog); the
      // leases (3 s) then lapse and the other worker takes them: from `settled` on, every write must go through.
      const settled = peers.includes("nats") ? 13_000 : 9_000
      const cutAt = 3_000, cutMs = settled + (FULL ? 25_000 : 8_000), total = cutAt + cutMs + (FULL ? 15_000 : 5_000)
      const isolatedLeases = async () => (await Promise.all(cut.map((c) => leasesOf(c.id)))).reduce((a, b) => a + b, 0)
      try {
        for (let i = 0; i < 200 && ((await Promise.all([...cut.map((c) => c.id), otherId].map(leasesOf))).includes(0)); i++) await sleep(100)
        for (const c of cut) expect(await leasesOf(c.id), c.peer).toBeGreaterThan(0)
        const leasesAt: Array<{ at: number; isolated: number; other: number }> = []
        const started = performance.now()
        const cutting = (async () => {
          await sleep(cutAt)
          for (const c of cut) c.host.cut(c.peer)
          while (performance.now() - started < cutAt + cutMs) {
            leasesAt.push({ at: Math.round(performance.now() - started), isolated: await isolatedLeases(), other: await leasesOf(otherId) })
            await sleep(1_000)
          }
          for (const c of cut) c.host.heal(c.peer)
        })()
        const answers = await load(writer(), FULL ? 32 : 8, total)
        await cutting
        const late = answers.filter((a) => a.at >= cutAt + settled && a.at + a.ms < cutAt + cutMs)
        console.log(JSON.stringify({ chaos: `partition worker-${peers.join("+")}`, answers: answers.length, statuses: count(answers), late: count(late), answered_by_2s: answeredBy2s(answers), leases: leasesAt.filter((_, i) => i % 3 === 0) }))
        expect(answers.filter((a) => ![200, 201, 503].includes(a.status)).map((a) => a.status)).toEqual([])
        expect(late.length).toBeGreaterThan(0)
        expect(late.filter((a) => a.status >= 300)).toEqual([])
        expect(leasesAt[leasesAt.length - 1]!.isolated).toBe(0)
        await storedOnce(sql, tenant.tenant_id, answers.filter((a) => a.status < 300))
      } finally {
        await Promise.all([...cut.map((c) => c.worker), other].map((w) => w.stop()))
      }
    }, 300_000)
  }
})
