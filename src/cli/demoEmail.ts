import { Effect } from "effect"
import { NotFound } from "../../schemas/errors.ts"
import type { EmailChannelRequest } from "../../schemas/channel.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { ChannelSettings } from "../channel/ChannelSettings.ts"
import type { DemoTenant } from "./demo.ts"

/** The demo tenant's sender: a reserved domain (RFC 2606), as nothing leaves the machine while the catcher takes it. */
export const DEMO_SENDER: EmailChannelRequest = { from_address: "reservas@demo-hotels.example", from_name: "Demo Barcelona" }

/**
 * `gep start` with the local mail catcher: the demo tenant's email channel (live and sandbox), when it has none, so a
 * newcomer's first journey email lands in the catcher instead of failing for want of a sender. A channel the developer
 * configured is left as it is. Answers what the start line prints about it.
 */
export const ensureDemoEmailChannel = (demo: DemoTenant, mailUi: string) =>
  Effect.gen(function*() {
    const settings = yield* ChannelSettings
    const configured: Array<string> = []
    for (const sandbox of [false, true]) {
      const scope = { tenant_id: demo.tenant_id, sandbox }
      const missing = yield* settings.email(scope).pipe(
        Effect.as(false),
        Effect.catchIf((e) => e instanceof NotFound, () => Effect.succeed(true))
      )
      if (missing) {
        yield* settings.putEmail(scope, DEMO_SENDER)
        configured.push(sandbox ? "sandbox" : "live")
      }
    }
    const from = (yield* settings.email({ tenant_id: demo.tenant_id, sandbox: false })).from_address
    yield* Effect.logInfo(`the demo tenant's email goes to the local mail catcher: open ${mailUi} (its API: ${mailUi}/api/email)`)
      .pipe(Effect.annotateLogs({ from, configured_now: configured.join(",") || "none" }))
    return { from, delivered_to: mailUi, api: `${mailUi}/api/email` }
  }).pipe(Effect.provide(ChannelSettings.layer), Effect.provide(WebhookConfig.layer))
