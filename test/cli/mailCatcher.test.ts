import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
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
const prepare = async (configured: string, load?: () => Promise<undefined>) => {
  const scope = Effect.runSync(Scope.make())
  const mail = await Effect.runPromise(mailForStart(configured, { smtp: 0, web: 0 }, load).pipe(Scope.provide(scope), Effect.provide(Logging)))
  return { mail, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

describe("the local mail catcher of gep start", () => {
  it("without GEP_SMTP_URL: maildev on loopback; mail sent to the printed SMTP URL shows in its REST API; stopped with the scope", async () => {
    const { mail, close } = await prepare("")
    try {
      expect(mail.announce).toEqual({ mail_ui: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), smtp_url: expect.stringMatching(/^smtp:\/\/127\.0\.0\.1:\d+$/) })
      expect(mail.smtpUrl).toBe(mail.announce.smtp_url)
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
    const { mail, close } = await prepare("smtps://user:secret@mail.example:465", () => Promise.reject(new Error("must not load maildev")))
    await close()
    expect(mail).toEqual({ smtpUrl: undefined, announce: {} })
  })

  it("without GEP_SMTP_URL and without maildev (an --omit=dev install): starts without mail and says so", async () => {
    const { mail, close } = await prepare("", () => Promise.resolve(undefined))
    await close()
    expect(mail).toEqual({ smtpUrl: undefined, announce: {} })
  })

  // The real command as `npm start` runs it, with its demo keys kept away from the developer's .data/.
  it("gep start prints the mail UI beside the base URL, on its one stdout line, gives the demo tenant a sender whose mail the catcher takes, and stops the catcher on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gep-start-"))
    const port = await freePort()
    const env: Record<string, string> = {
      ...process.env as Record<string, string>, DATABASE_URL: inject("databaseUrl"), NATS_URL: inject("natsUrl"),
      GEP_NAMESPACE: `${inject("namespace")}_start`, PORT: String(port), GEP_PARTITIONS: "2", GEP_DB_POOL_SIZE: "4",
      GEP_DEMO_FILE: join(dir, "demo-tenant.json"), GEP_LOG_LEVEL: "info",
      // The staff sign-in below comes from 127.0.0.1, as every test file's does, and the rate counters are shared.
      GEP_STAFF_CODES_PER_IP_PER_MINUTE: "100000"
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
      // An email the platform sends lands in the catcher: the send path reads the GEP_SMTP_URL start gave it.
      const key = line.demo_tenant.live_key as string
      const api = (method: string, path: string, body: unknown) =>
        fetch(`${line.base_url}${path}`, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) })
          .then(async (r) => ({ status: r.status, body: await r.json() as any }))
      // The demo tenant already has a sender (the first-run path): no PUT /api/v1/channels/email before the first send.
      expect(line.demo_email).toEqual({ from: "reservas@demo-hotels.example", delivered_to: line.mail_ui, api: `${line.mail_ui}/api/email` })
      const guest = await api("POST", "/api/v1/guests", { phone: "+34 600 555 010", first_name: "Ana", last_name: "García", email: "ana.start@gmail.com" })
      expect(guest.status).toBeLessThan(300)
      const sent = await api("POST", "/api/v1/messages", { contact_id: guest.body.data.contact_id, channel: "email", category: "utility", subject: "Welcome to Demo Hotels", text: "Hello Ana" })
      expect(sent.status, JSON.stringify(sent.body)).toBe(202)
      let caught: Array<Caught> = []
      for (const until = Date.now() + 30_000; caught.length === 0 && Date.now() < until;) {
        caught = (await inbox(line.mail_ui)).filter((m) => m.subject === "Welcome to Demo Hotels")
        if (caught.length === 0) await new Promise((r) => setTimeout(r, 200))
      }
      expect(caught).toHaveLength(1)
      expect(caught[0]).toMatchObject({ to: [{ address: "ana.start@gmail.com" }], from: [{ address: "reservas@demo-hotels.example" }] })
      // The console's demo administrator signs in with the code the catcher took.
      expect(line).toMatchObject({
        console: `http://127.0.0.1:${port}/console`,
        staff_sign_in: { url: `http://127.0.0.1:${port}/console`, email: "admin@demo-hotels.example", role: "admin", code_arrives_at: line.mail_ui }
      })
      const asked = await fetch(`${line.base_url}/api/v1/staff/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: line.staff_sign_in.email }) })
      expect(asked.status).toBe(202)
      let code: string | undefined
      for (const until = Date.now() + 30_000; code === undefined && Date.now() < until;) {
        code = (await inbox(line.mail_ui)).map((m) => /^(\d{6}) is your .* console sign-in code$/.exec(m.subject)?.[1]).find((c) => c !== undefined)
        if (code === undefined) await new Promise((r) => setTimeout(r, 200))
      }
      const verified = await fetch(`${line.base_url}/api/v1/staff/sign-in/verify`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: line.staff_sign_in.email, code })
      })
      expect(verified.status).toBe(200)
      expect(((await verified.json()) as any).data.role).toBe("admin")
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
