import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startPlatform, type RunningPlatform } from "../support/platform.ts"

// /openapi.json as a platform serves it, linted by Redocly CLI with its recommended rules (the repository's
// redocly.yaml, and its ignore file naming the few operations where a rule does not fit): no error, no warning.

const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const CLI = join(ROOT, "node_modules/@redocly/cli/bin/cli.js")

let platform: RunningPlatform
let dir: string

beforeAll(async () => {
  platform = await startPlatform("redocly")
  dir = mkdtempSync(join(tmpdir(), "gep-redocly-"))
})
afterAll(async () => {
  await platform?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

interface Problem {
  readonly ruleId: string
  readonly severity: "error" | "warn"
  readonly message: string
  readonly location: ReadonlyArray<{ readonly pointer: string }>
}
interface Report {
  readonly totals: { readonly errors: number; readonly warnings: number; readonly ignored: number }
  readonly problems: ReadonlyArray<Problem>
}

/** `redocly lint openapi.json --format=json` in `cwd`: offline (no telemetry, no update check), its JSON report. */
const lint = (cwd: string) =>
  new Promise<Report>((resolve, reject) => {
    execFile(process.execPath, [CLI, "lint", "openapi.json", "--format=json"], {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true" }
    }, (error, stdout, stderr) => {
      // Exit code 1 means problems were found: the report says which.
      try {
        resolve(JSON.parse(stdout) as Report)
      } catch {
        reject(new Error(`redocly lint gave no report (${error?.message ?? "no error"}): ${stderr.slice(0, 2000)}`))
      }
    })
  })

describe("/openapi.json under Redocly's recommended rules", () => {
  it("lints with no error and no warning", async () => {
    const res = await fetch(`${platform.baseUrl}/openapi.json`)
    expect(res.status).toBe(200)
    writeFileSync(join(dir, "openapi.json"), await res.text())
    for (const file of ["redocly.yaml", ".redocly.lint-ignore.yaml"]) copyFileSync(join(ROOT, file), join(dir, file))
    const report = await lint(dir)
    const found = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`)
    expect(found, found.join("\n")).toEqual([])
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
  })

  it("declares every HTTP auth scheme in lower case, the spelling /docs (Scalar) recognises: `Bearer` made it show Basic", async () => {
    const doc = await (await fetch(`${platform.baseUrl}/openapi.json`)).json() as { components: { securitySchemes: Record<string, { type: string; scheme?: string }> } }
    const http = Object.entries(doc.components.securitySchemes).filter(([, s]) => s.type === "http")
    expect(http.length).toBeGreaterThan(0)
    for (const [name, s] of http) expect(s.scheme, name).toBe(s.scheme!.toLowerCase())
  })
})
