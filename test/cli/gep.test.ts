import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import { freePort } from "../support/platform.ts"
import { spawnWorker } from "../support/processes.ts"
import { testConfig } from "../support/platform.ts"

const run = promisify(execFile)
const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

const gep = async (...args: Array<string>) => {
  const env = { ...process.env, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_cli` }
  const { stdout, code } = await run(process.execPath, [CLI, ...args], { env }).then(
    (r) => ({ stdout: r.stdout, code: 0 }),
    (e: { stdout: string; code: number }) => ({ stdout: e.stdout, code: e.code })
  )
  const lines = stdout.trim().split("\n")
  expect(lines.length).toBe(1)
  const json = JSON.parse(lines[0]!)
  expect(code).toBe(json.error === undefined ? 0 : 2)
  return json
}

describe("gep CLI", () => {
  it("creates a tenant, keys and a hotel, each printing one JSON object", async () => {
    const tenant = await gep("tenant", "create", "--name", `CLI ${Date.now()}`)
    expect(tenant).toEqual({ tenant_id: expect.any(String), live_key: expect.stringMatching(/^svckr_[0-9A-Za-z]{32}$/), test_key: expect.stringMatching(/^svckr_test_[0-9A-Za-z]{32}$/) })
    const key = await gep("key", "create", "--tenant", tenant.tenant_id, "--scopes", "reservations:write,guests:read", "--test")
    expect(key).toEqual({ key_id: expect.any(String), key: expect.stringMatching(/^svckr_test_/) })
    expect(await gep("key", "revoke", "--key-id", key.key_id)).toEqual({ key_id: key.key_id, revoked: true })
    const hotel = await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "BCN1", "--name", "Barcelona One", "--timezone", "Europe/Madrid")
    expect(hotel).toEqual({ hotel_id: expect.any(String) })
    expect(await gep("channel-map", "set", "--tenant", tenant.tenant_id, "--code", "BKG", "--name", "Booking.com", "--type", "ota"))
      .toEqual({ code: "BKG", name: "Booking.com", channel_type: "ota" })
    expect(await gep("conflicts", "list", "--tenant", tenant.tenant_id)).toEqual({ conflicts: [] })
    expect(await gep("cti", "create", "--tenant", tenant.tenant_id, "--provider", "aircall"))
      .toEqual({ integration_id: expect.any(String), token: expect.stringMatching(/^svccti_[0-9A-Za-z]{32}$/) })
  }, 30_000)

  it("refuses bad arguments with an error object and a non-zero exit", async () => {
    expect(await gep("key", "create", "--tenant", "00000000-0000-4000-8000-000000000000", "--scopes", "nope:scope")).toMatchObject({ error: expect.stringContaining("unknown scopes") })
    const tenant = await gep("tenant", "create", "--name", `CLI bad ${Date.now()}`)
    expect(await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "X", "--name", "X", "--timezone", "Mars/Olympus")).toMatchObject({ error: expect.stringContaining("IANA") })
    await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "X", "--name", "Xanadu", "--timezone", "UTC")
    expect(await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "X", "--name", "Other", "--timezone", "UTC")).toMatchObject({ error: expect.any(String) })
  }, 30_000)

  it("a worker process exits 0 on SIGTERM", async () => {
    const worker = await spawnWorker(testConfig("cliworker", { port: await freePort() }))
    worker.child.kill("SIGTERM")
    expect(await worker.exited).toBe(0)
    expect(worker.stderr()).toContain("worker stopped")
  }, 30_000)
})
