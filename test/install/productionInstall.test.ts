import { describe, expect, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import { freePort } from "../support/platform.ts"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))
const run = promisify(execFile)

/** What the Dockerfile copies into the image, read from its COPY lines (sources relative to the repository). */
export const imageFiles = (dockerfile: string): Array<string> =>
  dockerfile.split("\n").filter((l) => /^COPY\s/.test(l)).flatMap((l) => l.trim().split(/\s+/).slice(1, -1))

/** The README's first request: the curl under "Run it", as method, path and JSON body. */
export const firstRequest = (readme: string) => {
  const curl = /curl -s -X (\w+) http:\/\/127\.0\.0\.1:8080(\S+) \\[\s\S]*?-d '([^']+)'/.exec(readme)
  if (curl === null) throw new Error("README: no curl with -d under Run it")
  return { method: curl[1]!, path: curl[2]!, body: JSON.parse(curl[3]!) as unknown }
}

// No container daemon runs here, so the image is rebuilt in a temporary directory: the Dockerfile's files, its
// `npm ci --omit=dev` (from npm's cache when it has the packages), then `gep start` there, answering the README's
// first request. It fails when a module the platform loads is a devDependency, when the Dockerfile forgets a folder,
// or when the lockfile does not install as committed.
describe("the production install (what the Dockerfile runs)", () => {
  it("npm ci --omit=dev installs the lockfile as committed; gep start there answers the README's first request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gep-image-"))
    try {
      for (const path of imageFiles(readFileSync(join(ROOT, "Dockerfile"), "utf8"))) cpSync(join(ROOT, path), join(dir, path), { recursive: true })
      await run("npm", ["ci", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir, env: { ...process.env, NODE_ENV: "production" }, maxBuffer: 1 << 24 })
      await expect(run(process.execPath, ["-e", "require.resolve('vitest')"], { cwd: dir })).rejects.toThrow()

      const port = await freePort()
      const env: Record<string, string> = {
        ...process.env as Record<string, string>, NODE_ENV: "production", DATABASE_URL: inject("databaseUrl"), NATS_URL: inject("natsUrl"),
        GEP_NAMESPACE: `${inject("namespace")}_image`, PORT: String(port), GEP_PARTITIONS: "2", GEP_DB_POOL_SIZE: "4",
        GEP_DEMO_FILE: join(dir, "demo-tenant.json"), GEP_LOG_LEVEL: "warn"
      }
      delete env.GEP_SMTP_URL
      const child = spawn(process.execPath, ["src/cli/main.ts", "start"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] })
      let stdout = "", stderr = ""
      child.stdout.on("data", (d) => (stdout += d))
      child.stderr.on("data", (d) => (stderr += d))
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      try {
        for (const started = Date.now(); !stdout.includes("\n");) {
          if (child.exitCode !== null || Date.now() - started > 90_000) throw new Error(`gep start (production install) printed no line: ${stderr}`)
          await new Promise((r) => setTimeout(r, 100))
        }
        const line = JSON.parse(stdout.trim()) as { base_url: string; mail_ui?: string; demo_tenant: { live_key: string } }
        expect(line.base_url).toBe(`http://127.0.0.1:${port}`)
        expect(line.mail_ui).toBeUndefined() // maildev is a devDependency: not installed, so start warns instead
        const request = firstRequest(readFileSync(join(ROOT, "README.md"), "utf8"))
        const answer = await fetch(`${line.base_url}${request.path}`, {
          method: request.method, body: JSON.stringify(request.body),
          headers: { authorization: `Bearer ${line.demo_tenant.live_key}`, "content-type": "application/json" }
        })
        const body = await answer.json() as { success: boolean; data: { reservation_id: string } }
        expect(answer.status, JSON.stringify(body)).toBe(201)
        expect(body.data.reservation_id).toMatch(/^[0-9a-f-]{36}$/)
        child.kill("SIGTERM")
        expect(await exited).toBe(0)
      } finally {
        if (child.exitCode === null) child.kill("SIGKILL")
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 240_000)
})
