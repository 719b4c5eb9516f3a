import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import { freePort } from "../support/platform.ts"
import { spawnWorker } from "../support/processes.ts"
import { testConfig } from "../support/platform.ts"

const run = promisify(execFile)
const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))
const ROOT = fileURLToPath(new URL("../..", import.meta.url))

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

// Each command is a process of its own (2-4 s to load and run on a loaded 2-core machine), several per test.
const CLI_TEST_TIMEOUT_MS = 90_000

describe("gep CLI", () => {
  it("creates a tenant, keys and a hotel, each printing one JSON object", async () => {
    const tenant = await gep("tenant", "create", "--name", `CLI ${Date.now()}`)
    expect(tenant).toEqual({ tenant_id: expect.any(String), live_key: expect.stringMatching(/^svckr_[0-9A-Za-z]{32}$/), test_key: expect.stringMatching(/^svckr_test_[0-9A-Za-z]{32}$/) })
    const key = await gep("key", "create", "--tenant", tenant.tenant_id, "--scopes", "reservations:write,guests:read", "--test")
    expect(key).toEqual({ key_id: expect.any(String), key: expect.stringMatching(/^svckr_test_/) })
    expect(await gep("key", "revoke", "--key-id", key.key_id)).toEqual({ key_id: key.key_id, revoked: true })
    // keys:manage is never in a key by default (* does not grant it): named here, it is held.
    const admin = await gep("key", "create", "--tenant", tenant.tenant_id, "--scopes", "keys:manage", "--name", "console")
    expect(admin).toEqual({ key_id: expect.any(String), key: expect.stringMatching(/^svckr_/) })
    // The hotel as GET /api/v1/hotels/{hotel_id} answers it: the same checks and the same write as the API.
    const hotel = await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "BCN1", "--name", "Barcelona One", "--timezone", "Europe/Madrid",
      "--country", "ES", "--language", "ca", "--check-in-time", "15:00")
    expect(hotel).toMatchObject({ hotel_id: expect.any(String), code: "BCN1", country: "ES", default_language: "ca", check_in_time: "15:00", check_out_time: null })
    expect(await gep("channel-map", "set", "--tenant", tenant.tenant_id, "--code", "BKG", "--name", "Booking.com", "--type", "ota"))
      .toEqual({ code: "BKG", name: "Booking.com", channel_type: "ota" })
    expect(await gep("conflicts", "list", "--tenant", tenant.tenant_id)).toEqual({ conflicts: [] })
    expect(await gep("cti", "create", "--tenant", tenant.tenant_id, "--provider", "aircall"))
      .toEqual({ integration_id: expect.any(String), token: expect.stringMatching(/^svccti_[0-9A-Za-z]{32}$/) })
  }, CLI_TEST_TIMEOUT_MS)

  it("refuses bad arguments with an error object and a non-zero exit", async () => {
    expect(await gep("key", "create", "--tenant", "00000000-0000-4000-8000-000000000000", "--scopes", "nope:scope")).toMatchObject({ error: expect.stringContaining("unknown scopes") })
    const tenant = await gep("tenant", "create", "--name", `CLI bad ${Date.now()}`)
    expect(await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "X", "--name", "X", "--timezone", "Mars/Olympus")).toMatchObject({ error: expect.stringContaining("IANA") })
    await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "X", "--name", "Xanadu", "--timezone", "UTC")
    expect(await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "X", "--name", "Other", "--timezone", "UTC")).toMatchObject({ error: expect.stringContaining("--code") })
    expect(await gep("hotel", "create", "--tenant", tenant.tenant_id, "--code", "Y", "--name", "Y", "--timezone", "UTC", "--country", "XX", "--check-out-time", "noon"))
      .toMatchObject({ error: expect.stringMatching(/--country .*--check-out-time|--check-out-time .*--country/) })
  }, CLI_TEST_TIMEOUT_MS)

  it("a worker process exits 0 on SIGTERM", async () => {
    const worker = await spawnWorker(testConfig("cliworker", { port: await freePort() }))
    worker.child.kill("SIGTERM")
    expect(await worker.exited).toBe(0)
    expect(worker.stderr()).toContain("worker stopped")
  }, CLI_TEST_TIMEOUT_MS)

  // The README's forms, as an operator types them. `npx` runs with an empty npm cache of its own (a fresh clone's
  // situation: no npx cache entry from an earlier run) and without the npm_* variables of the npm that started
  // vitest, so it decides alone, under the project's .npmrc (strict-allow-scripts), how to find `gep`.
  it("every documented form runs the CLI: npx gep (also from a subdirectory), npm run gep --, bin/gep", async () => {
    const tenant = await gep("tenant", "create", "--name", `CLI forms ${Date.now()}`)
    const cache = mkdtempSync(join(tmpdir(), "gep-npm-cache-"))
    const env: Record<string, string> = { npm_config_cache: cache, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_cli` }
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !/^npm_/i.test(name) && !(name in env)) env[name] = value
    }
    const form = (command: string, args: Array<string>, cwd: string) =>
      run(command, args, { cwd, env }).then(
        (r) => ({ stdout: r.stdout, stderr: r.stderr, code: 0 }),
        (e: { stdout: string; stderr: string; code: number }) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code })
      )
    const list = ["conflicts", "list", "--tenant", tenant.tenant_id]
    try {
      for (const [command, args, cwd] of [
        ["npx", ["gep", ...list], ROOT],
        ["npx", ["gep", ...list], join(ROOT, "src")],
        ["npm", ["exec", "--", "gep", ...list], ROOT],
        ["npm", ["run", "-s", "gep", "--", ...list], ROOT],
        ["npm", ["run", "gep", "--", ...list], ROOT],
        [join(ROOT, "bin/gep"), list, ROOT]
      ] as const) {
        const { stdout, stderr, code } = await form(command, [...args], cwd)
        const label = `${command} ${args.join(" ")} in ${cwd}`
        expect({ label, code, stderr: code === 0 ? "" : stderr }).toEqual({ label, code: 0, stderr: "" })
        // `npm run` without -s prints its banner first; the command's own output is the last line.
        const lines = stdout.trim().split("\n")
        expect(JSON.parse(lines.at(-1)!), label).toEqual({ conflicts: [] })
        if (!(command === "npm" && args[1] === "gep")) expect(lines, label).toHaveLength(1)
      }
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  }, 60_000)

  // npx runs a bin the root package.json declares by installing the project itself into the npx cache as a
  // dependency, where package.json#allowScripts does not apply, so strict-allow-scripts refuses the project's own
  // postinstall. The command therefore lives in bin/package.json, linked into node_modules/.bin by npm install.
  // npm install still applies patches/ through the project's own postinstall.
  it("the project declares no bin of its own; gep comes from the linked bin/ package; the postgres patch is applied", () => {
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"))
    expect(root.bin).toBeUndefined()
    expect(root.dependencies["gep-cli"]).toBe("file:bin")
    expect(JSON.parse(readFileSync(join(ROOT, "bin/package.json"), "utf8")).bin).toEqual({ gep: "gep" })
    expect(root.scripts.postinstall).toBe("patch-package")
    expect(readFileSync(join(ROOT, "node_modules/postgres/src/connection.js"), "utf8"))
      .toContain("The connection closed after this write was scheduled")
  })
})
