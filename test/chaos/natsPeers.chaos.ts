import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { startSplitCluster, type SplitCluster } from "../support/natsCluster.ts"
import { makeHost, netnsUnavailable, type TestHost } from "../support/netns.ts"
import { createKey, createTenant, startPlatform, testConfig, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker, workerIdOf } from "../support/processes.ts"
import { FULL } from "./load.ts"
import { answeredBy2s, count, liveLeases, load, sleep, storedOnce } from "./partitionLoad.ts"

// One NATS node of three cut from its two peers while the platform's processes still reach it (issue 30 item 2; the
// partition of Jepsen's NATS analysis): the ingress and one worker are connected to that node only, a second worker
// to the other two. Streams at three replicas. Full size only (npm run test:chaos): CI time. Skipped, with the reason
// printed, where namespaces cannot be made.
//
// A connection to the cut node stays healthy (the node answers pings, and even JetStream account info), so before
// streams/jetStreamProbe.ts the processes on it stayed there: the ingress answered 503 for the whole cut and the
// worker kept its leases while it could consume nothing. Now each moves to a server of the majority within seconds.
const unavailable = netnsUnavailable()
if (unavailable !== undefined) console.log(`NATS peer partition fault test skipped: ${unavailable}`)

let host: TestHost | undefined
let cluster: SplitCluster | undefined
let platform: RunningPlatform | undefined
let tenant: TestTenant
let key: string
const sql = testSql()

beforeAll(async () => {
  if (unavailable !== undefined) return
  const base = testConfig("natspeers")
  host = await makeHost("np", { natsUrl: base.natsUrl, databaseUrl: base.databaseUrl })
  cluster = await startSplitCluster(host)
  platform = await startPlatform("chaos_natspeers", {
    role: "ingress",
    overrides: { natsUrl: cluster.isolatedUrl, streamReplicas: 3, replyTimeoutMs: 5_000, partitions: 4, leaseTtlMs: 3_000 }
  })
  tenant = await createTenant("chaos-natspeers")
  key = (await createKey(tenant.tenant_id, ["*"], { rate: 10_000_000 })).key
}, 120_000)
afterAll(async () => {
  await platform?.stop()
  await cluster?.stop()
  await host?.remove()
  await sql.end()
})

describe.skipIf(unavailable !== undefined)("a NATS node cut from its peers, its clients still connected", () => {
  it.skipIf(!FULL)("the ingress and the worker on the cut node move to the majority and writes flow again within seconds; nothing acknowledged lost or applied twice", async () => {
    const config = platform!.config
    const namespace = config.namespace
    const leasesOf = (owner: string) => liveLeases(sql, namespace, owner)
    const minority = await spawnWorker({ ...config, natsUrl: cluster!.isolatedUrl })
    const majority = await spawnWorker({ ...config, natsUrl: cluster!.majorityUrl })
    const [minorityId, majorityId] = [workerIdOf(minority.stderr())!, workerIdOf(majority.stderr())!]
    const cutAt = 3_000, cutMs = FULL ? 30_000 : 15_000, total = cutAt + cutMs + (FULL ? 15_000 : 8_000)
    try {
      for (let i = 0; i < 200 && ((await leasesOf(minorityId)) === 0 || (await leasesOf(majorityId)) === 0); i++) await sleep(100)
      const leasesAt: Array<{ at: number; minority: number; majority: number }> = []
      const started = performance.now()
      const cutting = (async () => {
        await sleep(cutAt)
        host!.cut("nats")
        while (performance.now() - started < cutAt + cutMs) {
          leasesAt.push({ at: Math.round(performance.now() - started), minority: await leasesOf(minorityId), majority: await leasesOf(majorityId) })
          await sleep(1_000)
        }
        host!.heal("nats")
      })()
      const answers = await load({ baseUrl: platform!.baseUrl, key, hotelCode: tenant.hotel_code }, FULL ? 32 : 8, total)
      await cutting
      // The probe's three failures 2 s apart, the reconnect, and the answers caught in it: every write sent from then
      // until the cut heals goes through the majority.
      const moved = 12_000
      const late = answers.filter((a) => a.at >= cutAt + moved && a.at + a.ms < cutAt + cutMs)
      const healed = answers.filter((a) => a.at >= cutAt + cutMs + 5_000)
      const slowest = Math.round(Math.max(...answers.map((a) => a.ms)))
      const natsLines = (stderr: string) => stderr.split("\n").filter((l) => /JetStream|NATS/.test(l)).map((l) => l.slice(0, 200))
      console.log(JSON.stringify({ chaos: "nats-peers-worker-log", minority: natsLines(minority.stderr()), majority: natsLines(majority.stderr()) }))
      console.log(JSON.stringify({ chaos: "nats-peers", answers: answers.length, statuses: count(answers), slowest_ms: slowest, late: count(late), healed: count(healed), answered_by_2s: answeredBy2s(answers), leases: leasesAt.filter((_, i) => i % 3 === 0) }))
      expect(answers.filter((a) => ![200, 201, 503].includes(a.status)).map((a) => a.status)).toEqual([])
      expect(answers.filter((a) => a.status === 503 && a.retryAfter === null).length).toBe(0)
      expect(slowest).toBeLessThan(12_000)
      expect(late.length).toBeGreaterThan(0)
      expect(late.filter((a) => a.status >= 300).map((a) => a.status)).toEqual([])
      expect(healed.filter((a) => a.status < 300).length).toBeGreaterThan(healed.length / 2)
      await storedOnce(sql, tenant.tenant_id, answers.filter((a) => a.status < 300))
    } finally {
      await minority.stop()
      await majority.stop()
    }
  }, 300_000)
})
