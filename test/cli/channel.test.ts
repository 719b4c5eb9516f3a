import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { readEmailChannel, readWhatsAppChannel, senderFor, whatsAppVerifyTokenKnown } from "../../core/channel/repository.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Logging } from "../../core/observability/log.ts"
import { CHANNEL_OPTIONS, channelCommand } from "../../src/cli/channel.ts"
import { createTenant, testConfig, testSql } from "../support/platform.ts"

const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))
const KEY = randomBytes(32)
const sql = testSql()
afterAll(() => sql.end())

/** Everything every command of this file printed, on stdout and stderr: searched for secrets at the end. */
let printed = ""

/** One `gep` command in its own process at GEP_LOG_LEVEL=debug: its one JSON object, the exit code checked against it. */
const gepProcess = (args: Array<string>, stdin?: string) =>
  new Promise<Record<string, any>>((resolve, reject) => {
    const env = {
      ...process.env, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_clich`,
      GEP_WEBHOOK_ENCRYPTION_KEY: KEY.toString("base64"), GEP_LOG_LEVEL: "debug"
    }
    const child = execFile(process.execPath, [CLI, ...args], { env }, (error, stdout, stderr) => {
      printed += stdout + stderr
      try {
        const lines = stdout.trim().split("\n")
        expect(lines, stdout + stderr).toHaveLength(1)
        const json = JSON.parse(lines[0]!)
        expect(error?.code ?? 0, stdout + stderr).toBe(json.error === undefined ? 0 : 2)
        resolve(json)
      } catch (e) {
        reject(e)
      }
    })
    child.stdin!.end(stdin ?? "")
  })

// Most cases run the command's function in this process (a process per command costs seconds on a busy machine);
// the whatsapp test runs real processes for the wiring: flags, stdin, stdout, exit codes and log lines.
// This file's own process: the at-rest key the in-process commands read, the same as the spawned ones get.
process.env.GEP_WEBHOOK_ENCRYPTION_KEY = KEY.toString("base64")
const runtime = ManagedRuntime.make(Layer.mergeAll(
  Database.layer.pipe(Layer.provideMerge(Layer.succeed(AppConfig, AppConfig.of(testConfig("clich"))))),
  Logging
))
afterAll(() => runtime.dispose())

const FLAGS = new Set(["tenant", "test", "name", ...Object.keys(CHANNEL_OPTIONS)])

/** `gep channel ...` as main.ts runs it after parsing: the command's object, or `{ error }` for a refusal. */
const gep = async (args: Array<string>): Promise<Record<string, any>> => {
  expect(args[0]).toBe("channel")
  const positionals: Array<string> = []
  const flags: Record<string, string | boolean> = {}
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!
    if (!a.startsWith("--")) positionals.push(a)
    else if (a === "--test" || a === "--clear") flags[a.slice(2)] = true
    else {
      expect(FLAGS.has(a.slice(2)), a).toBe(true)
      flags[a.slice(2)] = args[++i]!
    }
  }
  return runtime.runPromise(channelCommand(positionals, flags).pipe(
    Effect.map((r) => r as Record<string, any>),
    Effect.catchTag("TenancyError", (e) => Effect.succeed({ error: e.message }))
  ))
}

const phoneNumberId = () => String(100_000_000_000_000 + Math.floor(Math.random() * 899_999_999_999_999))

describe("gep channel email", () => {
  it("set, show, per-hotel override (by code) and its removal; flags not given keep their values", async () => {
    const t = await createTenant("cli-email")
    expect(await gep(["channel", "email", "show", "--tenant", t.tenant_id])).toEqual({ error: expect.stringContaining("not configured") })
    expect(await gep(["channel", "email", "set", "--tenant", t.tenant_id, "--name", "Grupo"])).toEqual({ error: expect.stringContaining("--from") })
    const set = await gep(["channel", "email", "set", "--tenant", t.tenant_id, "--from", "stay@grupo.example", "--name", "Grupo", "--reply-to", "desk@grupo.example", "--rate", "90"])
    expect(set).toEqual({ mode: "live", from_address: "stay@grupo.example", from_name: "Grupo", reply_to: "desk@grupo.example", hotel_overrides: {}, send_rate_per_minute: 90, updated_at: expect.any(String) })
    const renamed = await gep(["channel", "email", "set", "--tenant", t.tenant_id, "--name", "Grupo Hoteles", "--reply-to", ""])
    expect(renamed).toMatchObject({ from_address: "stay@grupo.example", from_name: "Grupo Hoteles", reply_to: null, send_rate_per_minute: 90 })

    const override = await gep(["channel", "email", "override", "--tenant", t.tenant_id, "--hotel", t.hotel_code, "--name", "Hotel Uno", "--reply-to", "uno@grupo.example"])
    expect(override.hotel_overrides).toEqual({ [t.hotel_id]: { from_name: "Hotel Uno", reply_to: "uno@grupo.example" } })
    expect(senderFor((await readEmailChannel(sql, { tenant_id: t.tenant_id, sandbox: false }))!, t.hotel_id))
      .toEqual({ from_address: "stay@grupo.example", from_name: "Hotel Uno", reply_to: "uno@grupo.example" })
    expect(await gep(["channel", "email", "show", "--tenant", t.tenant_id])).toEqual(override)
    expect((await gep(["channel", "email", "override", "--tenant", t.tenant_id, "--hotel", t.hotel_id, "--clear"])).hotel_overrides).toEqual({})
    // The sandbox is its own configuration.
    expect(await gep(["channel", "email", "show", "--tenant", t.tenant_id, "--test"])).toEqual({ error: expect.stringContaining("sandbox") })
  }, 60_000)

  it("refuses bad input naming the flag, and writes nothing", async () => {
    const t = await createTenant("cli-email-bad")
    expect(await gep(["channel", "email", "set", "--tenant", t.tenant_id, "--from", "nope"])).toEqual({ error: expect.stringContaining("--from must be an email address") })
    expect(await gep(["channel", "email", "set", "--tenant", t.tenant_id, "--from", "a@grupo.example", "--rate", "fast"])).toEqual({ error: expect.stringContaining("--rate") })
    expect(await gep(["channel", "email", "override", "--tenant", t.tenant_id, "--hotel", "NO-SUCH", "--name", "X"])).toEqual({ error: expect.stringContaining("NO-SUCH") })
    expect(await gep(["channel", "email", "set", "--tenant", "00000000-0000-4000-8000-000000000000", "--from", "a@grupo.example"])).toEqual({ error: expect.stringContaining("no tenant") })
    expect(await gep(["channel", "fax", "show", "--tenant", t.tenant_id])).toEqual({ error: expect.stringContaining("email or whatsapp") })
    expect(await readEmailChannel(sql, { tenant_id: t.tenant_id, sandbox: false })).toBeNull()
  }, 60_000)
})

describe("gep channel whatsapp", () => {
  it("set (a secret from stdin), show, templates add/list/remove; no secret is ever printed or logged", async () => {
    const t = await createTenant("cli-wa")
    const id = phoneNumberId()
    const token = `EAAG${randomBytes(24).toString("base64url")}`, appSecret = randomBytes(16).toString("hex"), verify = `v-${randomBytes(8).toString("hex")}`
    expect(await gepProcess(["channel", "whatsapp", "set", "--tenant", t.tenant_id, "--test", "--phone-number-id", id, "--app-secret", appSecret]))
      .toEqual({ error: expect.stringContaining("--access-token") })
    const set = await gepProcess(["channel", "whatsapp", "set", "--tenant", t.tenant_id, "--test", "--phone-number-id", id, "--access-token", "-", "--app-secret", appSecret, "--verify-token", verify], token + "\n")
    expect(set).toEqual({
      mode: "sandbox", phone_number_id: id, access_token_set: true, app_secret_set: true, verify_token_set: true, templates: [],
      send_rate_per_minute: null, updated_at: expect.any(String)
    })
    const scope = { tenant_id: t.tenant_id, sandbox: true }
    expect(await readWhatsAppChannel(sql, scope, KEY)).toMatchObject({ access_token: token, app_secret: appSecret })
    expect(await whatsAppVerifyTokenKnown(sql, verify)).toBe(true)

    const added = await gep(["channel", "whatsapp", "template", "add", "--tenant", t.tenant_id, "--test", "--name", "booking_confirmation", "--language", "es", "--category", "utility", "--body-parameters", "3"])
    expect(added).toEqual({ name: "booking_confirmation", language: "es", category: "utility", body_parameters: 3 })
    await gep(["channel", "whatsapp", "template", "add", "--tenant", t.tenant_id, "--test", "--name", "offer", "--language", "en_US", "--category", "marketing", "--body-parameters", "0"])
    expect(await gep(["channel", "whatsapp", "template", "add", "--tenant", t.tenant_id, "--test", "--name", "x", "--language", "es", "--category", "promo", "--body-parameters", "1"]))
      .toEqual({ error: expect.stringContaining("--category") })
    expect((await gep(["channel", "whatsapp", "template", "list", "--tenant", t.tenant_id, "--test"])).templates.map((x: { name: string }) => x.name)).toEqual(["booking_confirmation", "offer"])
    expect(await gep(["channel", "whatsapp", "template", "remove", "--tenant", t.tenant_id, "--test", "--name", "offer", "--language", "en_US"]))
      .toEqual({ name: "offer", language: "en_US", removed: true })
    expect(await gep(["channel", "whatsapp", "template", "remove", "--tenant", t.tenant_id, "--test", "--name", "offer", "--language", "en_US"]))
      .toEqual({ error: expect.stringContaining("offer") })

    // Later sets keep what they do not name: the number, the secrets, the templates.
    const rotated = `EAAG${randomBytes(24).toString("base64url")}`
    const again = await gep(["channel", "whatsapp", "set", "--tenant", t.tenant_id, "--test", "--access-token", rotated, "--rate", "20"])
    expect(again).toMatchObject({ phone_number_id: id, send_rate_per_minute: 20, templates: [added] })
    expect(await readWhatsAppChannel(sql, scope, KEY)).toMatchObject({ access_token: rotated, app_secret: appSecret })
    expect(await gepProcess(["channel", "whatsapp", "show", "--tenant", t.tenant_id, "--test"])).toEqual(again)

    // Another account cannot take the number.
    const other = await createTenant("cli-wa-other")
    expect(await gep(["channel", "whatsapp", "set", "--tenant", other.tenant_id, "--phone-number-id", id, "--access-token", "t", "--app-secret", "s"]))
      .toEqual({ error: expect.stringContaining("phone number id") })

    expect(printed).toContain("whatsapp channel configured")
    for (const s of [token, appSecret, verify]) expect(printed.includes(s), "a secret was printed or logged").toBe(false)
  }, 90_000)
})
