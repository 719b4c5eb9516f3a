import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Logging } from "../../core/observability/log.ts"
import { webSourceCommand, type WebSourceFlags } from "../../src/cli/webSource.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { createTenant, testConfig, testSql } from "../support/platform.ts"

useEncryptionKey()
const sql = testSql()
const runtime = ManagedRuntime.make(Layer.mergeAll(
  Database.layer.pipe(Layer.provideMerge(Layer.succeed(AppConfig, AppConfig.of(testConfig("cliweb"))))),
  Logging
))
afterAll(async () => {
  await runtime.dispose()
  await sql.end()
})

/** `gep web-source ...` as main.ts runs it after parsing: the command's object, or `{ error }` for a refusal. */
const gep = (args: Array<string>, flags: WebSourceFlags): Promise<Record<string, any>> =>
  runtime.runPromise(webSourceCommand(args, flags).pipe(
    Effect.map((r) => r as Record<string, any>),
    Effect.catchTag("TenancyError", (e) => Effect.succeed<Record<string, any>>({ error: e.message }))
  ))

describe("gep web-source", () => {
  it("creates, lists, pauses, adds and revokes keys, declares events, switches the feature, with the API's refusals", async () => {
    const t = await createTenant("cli-web")
    const tenant = t.tenant_id
    const created = await gep(["create"], { tenant, name: "Shop", origins: "https://Shop.Hotel-Guests.net", signing: true })
    expect(created.server_key).toMatch(/^svc_sk_/)
    expect(created.browser_key).toMatch(/^svc_pk_/)
    expect(created.webhook_token).toMatch(/^svc_wh_/)
    expect(created.signing_secret).toMatch(/^whsec_/)
    expect(created.source.allowed_origins).toEqual(["https://shop.hotel-guests.net"])
    const id = created.source_id as string
    expect((await gep(["list"], { tenant })).sources.map((s: any) => s.source_id)).toEqual([id])
    expect((await gep(["pause"], { tenant, id })).enabled).toBe(false)
    expect((await gep(["resume"], { tenant, id })).enabled).toBe(true)
    const key = await gep(["add-key"], { tenant, id, kind: "browser" })
    expect(key.key).toMatch(/^svc_pk_/)
    expect((await gep(["add-key"], { tenant, id, kind: "browser" })).error).toContain("at most 2 live browser keys")
    expect((await gep(["revoke-key"], { tenant, id, "key-id": key.key_id })).key_id).toBe(key.key_id)
    expect((await gep(["declare"], { tenant, id, event: "voucher.viewed" })).status).toBe("not received")
    expect((await gep(["events"], { tenant, id })).events).toHaveLength(1)
    expect((await gep(["rotate-secret"], { tenant, id })).signing_secret).toMatch(/^whsec_/)
    expect((await gep(["deliveries"], { tenant, id })).deliveries).toEqual([])
    expect((await gep(["create"], { tenant, name: "Bad", origins: "https://*.x.com" })).error).toContain("allowed_origins[0]")
    expect((await gep(["show"], { tenant, id: "00000000-0000-4000-8000-000000000000" })).error).toContain("No website source")
    expect(await gep(["feature", "off"], { tenant })).toEqual({ tenant_id: tenant, website_events_enabled: false })
    const [row] = await sql`SELECT website_events_enabled FROM tenants WHERE id = ${tenant}`
    expect(row!.website_events_enabled).toBe(false)
    expect((await gep(["delete"], { tenant, id })).enabled).toBe(false)
  })
})
