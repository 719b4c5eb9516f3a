import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Logging } from "../../core/observability/log.ts"
import { oidcCommand, type OidcFlags } from "../../src/cli/oidc.ts"
import { decryptClientSecret } from "../../src/oidc/secrets.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { createTenant, testConfig, testSql } from "../support/platform.ts"

const key = useEncryptionKey()
const sql = testSql()
const runtime = ManagedRuntime.make(Layer.mergeAll(
  Database.layer.pipe(Layer.provideMerge(Layer.succeed(AppConfig, AppConfig.of(testConfig("clioidc"))))),
  Logging
))
afterAll(async () => {
  await runtime.dispose()
  await sql.end()
})

/** `gep oidc ...` as main.ts runs it after parsing: the command's object, or `{ error }` for a refusal. */
const gep = (args: Array<string>, flags: OidcFlags = {}): Promise<Record<string, any>> =>
  runtime.runPromise(oidcCommand(args, flags).pipe(
    Effect.map((r) => r as Record<string, any>),
    Effect.catchTag("TenancyError", (e) => Effect.succeed<Record<string, any>>({ error: e.message }))
  ))

describe("gep oidc", () => {
  it("client create answers the id and the secret once; the secret is stored encrypted; bad input is refused by flag", async () => {
    const { tenant_id } = await createTenant("cli-oidc")
    const created = await gep(["client", "create"], { tenant: tenant_id, name: "Hotel site", "redirect-uri": "https://hotel.example/cb", "post-logout-redirect-uri": "https://hotel.example/bye" })
    expect(Object.keys(created).sort()).toEqual(["client_id", "client_secret"])
    const [row] = await sql`SELECT tenant_id, secret_encrypted, redirect_uris, post_logout_redirect_uris FROM oidc_clients WHERE client_id = ${created.client_id}`
    expect(row!.tenant_id).toBe(tenant_id)
    expect(Buffer.from(row!.secret_encrypted).includes(Buffer.from(created.client_secret))).toBe(false)
    expect(decryptClientSecret(key, created.client_id, row!.secret_encrypted)).toBe(created.client_secret)
    expect(row!.redirect_uris).toEqual(["https://hotel.example/cb"])
    expect((await gep(["client", "create"], { tenant: tenant_id, name: "x", "redirect-uri": "not a url" })).error).toMatch(/--redirect-uri/)
    expect((await gep(["client", "create"], { tenant: "00000000-0000-4000-8000-000000000000", name: "x", "redirect-uri": "https://a.example/cb" })).error).toMatch(/no tenant/)
  })

  it("rotate-keys makes the published next key current and publishes a new next", async () => {
    const first = await gep(["rotate-keys"])
    const second = await gep(["rotate-keys"])
    expect(second.current_kid).toBe(first.next_kid)
    expect(second.retired_kids).toContain(first.current_kid)
    expect(second.next_kid).not.toBe(first.next_kid)
  })
})
