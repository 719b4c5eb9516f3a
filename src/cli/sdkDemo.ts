import { Effect, Redacted } from "effect"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { Database } from "../../core/db/Database.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import * as Sources from "../website/SourceCommands.ts"
import type { DemoTenant } from "./demo.ts"

/** Beside the demo tenant's file (GEP_DEMO_FILE moves both): the demo page's website source and its browser key. */
const demoFile = () =>
  (process.env.GEP_DEMO_FILE || fileURLToPath(new URL("../../.data/demo-tenant.json", import.meta.url))).replace(/\.json$/, "") + "-web.json"

interface Saved { readonly source_id: string; readonly browser_key: string }

/**
 * The demo booking page of `gep start` (development): a website source of the demo tenant whose allowed origins are
 * this server's own, made on the first start (its browser key kept in .data, mode 0600) and re-pointed when the port
 * changes; answers the page's URL with the key (and the mail catcher's UI) in the fragment (never sent to a server by
 * the browser).
 */
export const ensureDemoWebSource = (demo: DemoTenant, port: number, mailUi?: string) => Effect.gen(function*() {
  const { sql } = yield* Database
  const webhook = yield* WebhookConfig
  const base = `http://127.0.0.1:${port}`
  const ctx: Sources.SourceContext = { sql, key: Redacted.value(webhook.encryptionKey), baseUrl: base }
  const scope = { tenant_id: demo.tenant_id, sandbox: false }
  const origins = [base, `http://localhost:${port}`]
  const file = demoFile()
  const saved = yield* Effect.promise(() => readFile(file, "utf8").then((s) => JSON.parse(s) as Saved, () => undefined))
  const existing = saved === undefined ? undefined
    : yield* Sources.getSource(ctx, scope, saved.source_id).pipe(Effect.orElseSucceed(() => undefined))
  let key = saved?.browser_key
  if (existing === undefined || key === undefined) {
    const created = yield* Sources.createSource(ctx, scope, { name: "Demo booking page", allowed_origins: origins })
    key = created.browser_key
    const record: Saved = { source_id: created.source_id, browser_key: key }
    yield* Effect.promise(async () => {
      await mkdir(dirname(file), { recursive: true })
      await writeFile(file, JSON.stringify(record, null, 2), { mode: 0o600 })
    })
  } else if (JSON.stringify([...existing.allowed_origins].sort()) !== JSON.stringify([...origins].sort())) {
    yield* Sources.updateSource(ctx, scope, saved!.source_id, { allowed_origins: origins })
  }
  // The mail catcher's UI, when there is one, so the page can say where a journey's email lands.
  const mail = mailUi === undefined ? "" : `&mail=${encodeURIComponent(mailUi)}`
  return `${base}/sdk/demo.html#key=${key}&hotel=${encodeURIComponent(demo.hotel_code)}${mail}`
}).pipe(Effect.provide(WebhookConfig.layer))
