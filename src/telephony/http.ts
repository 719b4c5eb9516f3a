import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { CurrentIntegration, type Integration } from "../../schemas/security.ts"
import { IngressPublisher } from "../../streams/IngressPublisher.ts"
import { Database } from "../../core/db/Database.ts"
import { parseCti } from "./commands.ts"
import { screenPop } from "./reads.ts"
import { askActor, failure, respond } from "../http/answers.ts"

export const TelephonyLive = HttpApiBuilder.group(Api, "telephony", (handlers) =>
  Effect.gen(function*() {
    const publisher = yield* IngressPublisher
    const db = yield* Database

    const receive = Effect.fn("Telephony.receive")(function*(integration: Integration, body: Record<string, unknown>, pathProvider?: string) {
      if (pathProvider !== undefined && pathProvider !== integration.provider) {
        return failure(403, "FORBIDDEN", `This token belongs to provider ${integration.provider}, not ${pathProvider}`, { provider: ["does not match the token's provider"] })
      }
      const parsed = parseCti(body, integration.provider)
      if (!parsed.ok) return failure(parsed.status, parsed.code, parsed.message, parsed.details)
      const cmd = parsed.command
      // Calls belong to the live data of the tenant: telephony tokens have no sandbox mode.
      const answer = yield* askActor(publisher, { tenant_id: integration.tenant_id, sandbox: false }, "telephony", "telephony.record", `${cmd.provider}:${cmd.call_id}`, cmd)
      if (answer.status >= 300 || cmd.event_type !== "call_ringing") return answer
      const number = parsed.guestNumber ?? cmd.facts.from_number
      const pop = yield* db.query((sql) => screenPop(sql, integration.tenant_id, number?.startsWith("+") ? number : undefined))
      const body_ = answer.body as { success: true; data: Record<string, unknown> }
      return { status: answer.status, body: { ...body_, data: { ...body_.data, screen_pop: pop } } }
    })

    return handlers
      .handle("cti", ({ payload }) => CurrentIntegration.use((i) => Effect.map(receive(i, payload), respond)))
      .handle("ctiProvider", ({ payload, params }) =>
        CurrentIntegration.use((i) => Effect.map(receive(i, payload, params.provider), respond)))
  }))
