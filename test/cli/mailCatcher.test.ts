import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option, Redacted, Scope } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import nodemailer from "nodemailer"
import { inject } from "vitest"
import { Logging } from "../../core/observability/log.ts"
import { mailForStart } from "../../src/cli/mailCatcher.ts"
import { freePort } from "../support/platform.ts"

const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

interface Caught {
  readonly subject: string
  readonly to: ReadonlyArray<{ readonly address: string }>
  readonly from: ReadonlyArray<{ readonly address: string }>
  readonly headers: Record<string, string>
}
const inbox = async (webUrl: string): Promise<Array<Caught>> => {
  const res = await fetch(`${webUrl}/api/email`)
  expect(res.status).toBe(200)
  return res.json() as Promise<Array<Caught>>
}

/** mailForStart in a scope of the test's own, closed when the test says. */
const prepare = async (configured: Option.Option<Redacted.Redacted<string>>, load?: () => Promise<undefined>) => {
  const scope = Effect.runSync(Scope.make())
  const dir = mkdtempSync(join(tmpdir(), "gep-mail-"))
  const mail = await Effect.runPromise(
    mailForStart(configured, { smtp: 0, web: 0, mailDirectory: dir }, load).pipe(Scope.provide(scope), Effect.provide(Logging))
  )
  return {
    mail,
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

describe("the local mail catcher of gep start", () => {
  it("without GEP_SMTP_URL: maildev on loopback; mail sent to the printed SMTP URL shows in its REST API; stopped with the scope", async () => {
    const { mail, close } = await prepare(Option.none())
    try {
      expect(mail.announce).toEqual({ mail_ui: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), smtp_url: expect.stringMatching(/^smtp:\/\/127\.0\.0\.1:\d+$/) })
      expect(Option.map(mail.smtpUrl, Redacted.value)).toEqual(Option.some(mail.announce.smtp_url))
      const transport = nodemailer.createTransport(mail.announce.smtp_url!)
      await transport.sendMail({
        from: "Hotel Demo <stay@hotel.example>", to: "ana.garcia@gmail.com", subject: "Your stay in Barcelona", text: "See you soon",
        messageId: "<msg-1@gep.example>"
      })
      transport.close()
      const caught = await inbox(mail.announce.mail_ui!)
      expect(caught).toHaveLength(1)
      expect(caught[0]).toMatchObject({ subject: "Your stay in Barcelona", to: [{ address: "ana.garcia@gmail.com" }], from: [{ address: "stay@hotel.example" }] })
      expect(caught[0]!.headers["message-id"]).toBe("<msg-1@gep.example>")
      const ui = await fetch(mail.announce.mail_ui!, { headers: { accept: "text/html" } })
      expect(ui.status).toBe(200)
      expect(await ui.text()).toContain("<html")
    } finally {
      await close()
    }
    await expect(fetch(`${mail.announce.mail_ui}/api/email`)).rejects.toThrow()
  })

  it("with GEP_SMTP_URL: no catcher, the configured URL is used and never printed", async () => {
    const configured = Option.some(Redacted.make("smtps://user:secret@mail.example:465"))
    const { mail, close } = await prepare(configured, () => Promise.reject(new Error("must not load maildev")))
    await close()
    expect(mail).toEqual({ smtpUrl: configured, announce: {} })
  })

  it("without GEP_SMTP_URL and without maildev (an --omit=dev install): starts without mail and says so", async () => {
    const { mail, close } = await prepare(Option.none(), () => Promise.resolve(undefined))
    await close()
    expect(mail).toEqual({ smtpUrl: Option.none(), announce: {} })
  })

  // The real command as `npm start` runs it, with its demo keys kept away from the developer's .data/.
  it("gep start prints the mail UI beside the base URL, on its one stdout line, and stops the catcher on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gep-start-"))
    const port = await freePort()
    const env: Record<string, string> = {
      ...process.env as Record<string, string>, DATABASE_URL: inject("databaseUrl"), NATS_URL: inject("natsUrl"),
      GEP_NAMESPACE: `${inject("namespace")}_start`, PORT: String(port), GEP_PARTITIONS: "2", GEP_DB_POOL_SIZE: "4",
      GEP_DEMO_FILE: join(dir, "demo-tenant.json"), GEP_LOG_LEVEL: "info"
    }
    delete env.GEP_SMTP_URL
    const child = spawn(process.execPath, [CLI, "start"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = "", stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    try {
      const started = Date.now()
      while (!stdout.includes("\n")) {
        if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`gep start did not print its line: ${stderr}`)
        await new Promise((r) => setTimeout(r, 100))
      }
      const line = JSON.parse(stdout.trim())
      expect(line).toMatchObject({
        role: "all", base_url: `http://127.0.0.1:${port}`, mail_ui: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        smtp_url: expect.stringMatching(/^smtp:\/\/127\.0\.0\.1:\d+$/), demo_tenant: { tenant_id: expect.any(String) }
      })
      expect(Object.keys(line).indexOf("mail_ui")).toBe(Object.keys(line).indexOf("base_url") + 3)
      expect(Array.isArray(await inbox(line.mail_ui))).toBe(true)
      for (const l of stderr.trim().split("\n")) expect(() => JSON.parse(l), l).not.toThrow()
      child.kill("SIGTERM")
      expect(await exited).toBe(0)
      expect(stdout.trim().split("\n")).toHaveLength(1)
      await expect(fetch(`${line.mail_ui}/api/email`)).rejects.toThrow()
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
      rmSync(dir, { recursive: true, force: true })
    }
  }, 90_000)
})
