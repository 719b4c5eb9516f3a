import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile, execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import postgres from "postgres"
import { phone } from "../support/fixtures.ts"
import { testConfig } from "../support/platform.ts"
import { spawnIngress, spawnWorker, type IngressProcess } from "../support/processes.ts"
import { FULL } from "./load.ts"

/**
 * A rolling upgrade under load: the previous release (a git worktree of its commit) runs an ingress and a worker on a
 * database of its own migrations while clients write; then, as README "Upgrades" says, the current release's
 * migrations are applied (expand only), its worker joins and the old worker stops, then its ingress joins and the old
 * ingress stops. Every acknowledged write must be stored once, each reservation with the last value acknowledged.
 * The previous release: the last one landed before envelopes carried a version (stop 31). Skipped, with the reason
 * printed, where this clone lacks that commit (a shallow clone).
 */
const PREVIOUS_RELEASE = "60939a3d00b5871e85aad70de1b6fae7f3057c74"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const CLI = join(ROOT, "src/cli/main.ts")
const run = promisify(execFile)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const missing = (() => {
  try {
    execFileSync("git", ["cat-file", "-e", `${PREVIOUS_RELEASE}^{commit}`], { cwd: ROOT, stdio: "ignore" })
    return undefined
  } catch {
    return `the previous release's commit ${PREVIOUS_RELEASE.slice(0, 7)} is not in this clone`
  }
})()
if (missing !== undefined) console.log(`upgrade fault test skipped: ${missing}`)

const config = testConfig("upgrade", { partitions: 4 })
const database = new URL(config.databaseUrl)
database.pathname = `${database.pathname}_upgrade`
const upgradeConfig = { ...config, databaseUrl: database.toString() }
const env = { DATABASE_URL: upgradeConfig.databaseUrl, NATS_URL: upgradeConfig.natsUrl, GEP_NAMESPACE: upgradeConfig.namespace, GEP_PARTITIONS: "4" }
let worktree: string

/** A `gep` command of a release: its JSON answer. */
const gep = async (cli: string, args: Array<string>) =>
  JSON.parse((await run(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, cwd: ROOT })).stdout.trim().split("\n").pop()!) as Record<string, any>

beforeAll(async () => {
  if (missing !== undefined) return
  worktree = mkdtempSync(join(tmpdir(), "gep-previous-"))
  execFileSync("git", ["worktree", "add", "--detach", "--force", worktree, PREVIOUS_RELEASE], { cwd: ROOT, stdio: "ignore" })
  // The same dependencies as this checkout when the lockfiles agree; else the release's own install.
  if (readFileSync(join(worktree, "package-lock.json"), "utf8") === readFileSync(join(ROOT, "package-lock.json"), "utf8")) {
    symlinkSync(join(ROOT, "node_modules"), join(worktree, "node_modules"))
  } else {
    await run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: worktree, maxBuffer: 1 << 24 })
  }
}, 180_000)
afterAll(async () => {
  if (worktree !== undefined && existsSync(worktree)) {
    execFileSync("git", ["worktree", "remove", "--force", worktree], { cwd: ROOT, stdio: "ignore" })
    rmSync(worktree, { recursive: true, force: true })
  }
  const admin = postgres(config.databaseUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`DROP DATABASE IF EXISTS "${database.pathname.slice(1)}" WITH (FORCE)`).catch(() => undefined)
  await admin.end()
})

describe.skipIf(missing !== undefined)("a rolling upgrade from the previous release, under load", () => {
  it("migrate, replace the worker, then the ingress: every acknowledged write stored once with its last value", async () => {
    const oldCli = join(worktree, "src/cli/main.ts")
    await gep(oldCli, ["migrate"])
    const tenant = await gep(oldCli, ["tenant", "create", "--name", "Upgrade"])
    const hotel = await gep(oldCli, ["hotel", "create", "--tenant", tenant.tenant_id, "--code", "UPG-1", "--name", "Upgrade Hotel", "--timezone", "Europe/Madrid"])
    expect(hotel.hotel_id).toBeDefined()
    const processes: Array<IngressProcess> = []
    const started = async (p: Promise<IngressProcess>) => {
      const proc = await p
      processes.push(proc)
      return proc
    }
    const oldWorker = await started(spawnWorker(upgradeConfig, {}, { cli: oldCli }))
    const oldIngress = await started(spawnIngress(upgradeConfig, {}, { cli: oldCli }))
    const targets = [oldIngress.baseUrl]
    const ids = FULL ? 400 : 80
    const lastAcked = new Map<string, number>()
    const refused: Array<number> = []
    let stop = false
    let next = 0
    // Each client takes reservation ids in turn and sends each one's updates in order, every one until acknowledged
    // (a 503, or an ingress going away mid-request, is sent again, to whichever ingress is current).
    const client = async () => {
      while (!stop) {
        const i = next++ % ids
        const id = `UPG-${i}`
        const value = (lastAcked.get(id) ?? 0) + 1
        const body = {
          reservation_id: id, hotel_code: "UPG-1", check_in: "2026-12-01", check_out: "2026-12-03", amount: value,
          guests: [{ first_name: "Upgrade", phone: phone(700_000 + i), email: `upgrade${i}@gmail.com`, is_holder: true }]
        }
        for (;;) {
          const target = targets[Math.floor(Math.random() * targets.length)]!
          const res = await fetch(`${target}/api/v1/reservations`, {
            method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(20_000),
            headers: { authorization: `Bearer ${tenant.live_key}`, "content-type": "application/json" }
          }).catch(() => undefined)
          await res?.arrayBuffer()
          if (res !== undefined && res.status < 300) {
            lastAcked.set(id, value)
            break
          }
          if (res !== undefined && res.status !== 503) refused.push(res.status)
          await sleep(100 + Math.random() * 200)
        }
      }
    }
    const load = Promise.all(Array.from({ length: FULL ? 16 : 6 }, client))
    try {
      await sleep(2_000)
      // 1. The current release's migrations, while the previous release runs (expand only: nothing it uses changes).
      await gep(CLI, ["migrate"])
      await sleep(1_000)
      // 2. Workers first: the new one joins, the old one stops (draining and releasing its partitions).
      const newWorker = await started(spawnWorker(upgradeConfig))
      await sleep(2_000)
      await oldWorker.stop()
      await sleep(2_000)
      // 3. Then the ingresses: clients move to the new one, the old one stops.
      const newIngress = await started(spawnIngress(upgradeConfig))
      targets.push(newIngress.baseUrl)
      await sleep(1_000)
      targets.splice(targets.indexOf(oldIngress.baseUrl), 1)
      await oldIngress.stop()
      await sleep(FULL ? 10_000 : 3_000)
      expect(newWorker.stderr()).not.toContain('"level":"error"')
    } finally {
      stop = true
      await load
    }
    const admin = postgres(upgradeConfig.databaseUrl, { max: 1, onnotice: () => {} })
    try {
      await sleep(2_000)
      const rows = await admin`SELECT external_id, amount::int AS amount FROM reservations WHERE tenant_id = ${tenant.tenant_id}`
      const stored = new Map(rows.map((r) => [r.external_id as string, r.amount as number]))
      console.log(JSON.stringify({ chaos: "upgrade", from: PREVIOUS_RELEASE.slice(0, 7), ids, acknowledged: [...lastAcked.values()].reduce((a, b) => a + b, 0), refused }))
      expect(refused).toEqual([])
      expect(rows.length).toBe(stored.size)
      expect([...lastAcked].filter(([id, v]) => stored.get(id) !== v)).toEqual([])
      const [contacts] = await admin`SELECT count(*)::int AS n, count(DISTINCT phone)::int AS phones FROM contacts WHERE tenant_id = ${tenant.tenant_id}`
      expect(contacts!.n).toBe(contacts!.phones)
      const [dead] = await admin`SELECT count(*)::int AS n FROM dead_letters`
      expect(dead!.n).toBe(0)
    } finally {
      await admin.end()
      await Promise.all(processes.map((p) => p.stop()))
    }
  }, 300_000)
})
