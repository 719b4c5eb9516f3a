import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { generatedFiles } from "./generated.ts"
import { ROOT } from "./reference/sourceFiles.ts"

const committed = (path: string): string | undefined => {
  try {
    return readFileSync(join(ROOT, path), "utf8")
  } catch {
    return undefined
  }
}

/** The first line where two texts differ, to name in the failure. */
const firstDifference = (a: string, b: string): string => {
  const x = a.split("\n")
  const y = b.split("\n")
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return `line ${i + 1}:\n  committed: ${x[i] ?? "(end of file)"}\n  generated: ${y[i] ?? "(end of file)"}`
  }
  return "no difference"
}

describe("docs/reference (and the performance figures) are what the code and the bench results say", () => {
  it("every generated file is committed unchanged", async () => {
    const stale: Array<string> = []
    for (const [path, text] of await generatedFiles()) {
      const current = committed(path)
      if (current !== text) stale.push(`${path} is ${current === undefined ? "missing" : `stale at ${firstDifference(current, text)}`}`)
    }
    expect(stale, `${stale.join("\n")}\nRun \`npx node test/docs/generateReference.ts\` and commit what it wrote.`).toEqual([])
  })
})

describe("the configuration page names every variable the code reads", () => {
  // A loose scan, independent of the generator's strict one: any `Config.<Kind>("NAME"` or `process.env.NAME` in the
  // product code must appear on the committed page.
  it("no Config or process.env read is missing from docs/reference/configuration.md", async () => {
    const { productFiles } = await import("./reference/sourceFiles.ts")
    const page = committed("docs/reference/configuration.md") ?? ""
    const missing: Array<string> = []
    for (const file of productFiles(["core", "src", "actors", "streams"])) {
      for (const m of file.text.matchAll(/(?:Config\.\w+\(\s*"|process\.env\.)([A-Z][A-Z0-9_]+)/g)) {
        if (!["NODE_ENV", "HOME", "PATH"].includes(m[1]!) && !page.includes("`" + m[1] + "`")) missing.push(`${m[1]} (${file.path})`)
      }
    }
    expect(missing).toEqual([])
  })

  it("the defaults the page shows are what the exported Config objects decode to with nothing set", async () => {
    const { ConfigProvider, Effect } = await import("effect")
    const { scanConfiguration } = await import("./reference/configurationScan.ts")
    const { AppConfig } = await import("../../core/config/AppConfig.ts")
    const { MessagingConfig } = await import("../../core/message/MessagingConfig.ts")
    const { JourneyConfig } = await import("../../core/journey/JourneyConfig.ts")
    const empty = ConfigProvider.fromUnknown({})
    const decoded: Record<string, unknown> = {
      ...Effect.runSync(AppConfig.config.parse(empty)),
      ...Effect.runSync(MessagingConfig.config.parse(empty)),
      ...Effect.runSync(JourneyConfig.config.parse(empty))
    }
    // Field → variable, as the config objects name them (the scan records the variable, the object the field).
    const scanned = new Map((await scanConfiguration()).map((r) => [r.name, r.defaultValue]))
    const fields: Record<string, string> = {
      natsUrl: "NATS_URL", databaseUrl: "DATABASE_URL", namespace: "GEP_NAMESPACE", port: "PORT", partitions: "GEP_PARTITIONS",
      replyTimeoutMs: "GEP_REPLY_TIMEOUT_MS", leaseTtlMs: "GEP_LEASE_TTL_MS", inboxRetentionMs: "GEP_INBOX_RETENTION_MS",
      smtpUrl: "GEP_SMTP_URL", sendTimeoutMs: "GEP_SEND_TIMEOUT_MS", conversationIdleMs: "GEP_CONVERSATION_IDLE_MS", timerMs: "GEP_JOURNEY_TIMER_MS"
    }
    for (const [field, variable] of Object.entries(fields)) expect([variable, scanned.get(variable)]).toEqual([variable, decoded[field]])
  })
})
