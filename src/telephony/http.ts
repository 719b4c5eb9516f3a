import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { TelephonyProtocol } from "../../actors/telephony/protocol.ts"
import { Database } from "../../core/db/Database.ts"
import { Api } from "../../schemas/api.ts"
import { Forbidden } from "../../schemas/errors.ts"
import { CurrentIntegration, type Integration } from "../../schemas/security.ts"
import { CallCreated } from "../../schemas/telephony.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, ok, refusal } from "../http/answers.ts"
import { makeSubjectCheck } from "../privacy/subjectCheck.ts"
import { parseCti } from "./commands.ts"
import { screenPop } from "./reads.ts"
import { withoutSuppressedCaller } from "./suppression.ts"

export const TelephonyLive = HttpApiBuilder.group(Api, "telephony", (handlers) =>
  Effect.gen(function*() {
    const actors = yield* ActorClient
    const db = yield* Database
    const subjects = yield* makeSubjectCheck

    const receive = Effect.fn("Telephony.receive")(function*(integration: Integration, body: Record<string, unknown>, pathProvider?: string) {
      if (pathProvider !== undefined && pathProvider !== integration.provider) {
        return yield* Forbidden.of(`This token belongs to provider ${integration.provider}, not ${pathProvider}`, { provider: ["does not match the token's provider"] })
      }
      const parsed = parseCti(body, integration.provider)
      if (!parsed.ok) return yield* refusal(parsed.status, parsed.code, parsed.message, parsed.details)
      // Calls belong to the live data of the tenant: telephony tokens have no sandbox mode.
      const scope = { tenant_id: integration.tenant_id, sandbox: false }
      const stripped = yield* withoutSuppressedCaller(subjects, scope, parsed.command)
      const cmd = stripped ?? parsed.command
      const { is_new, ...result } = yield* answered(actors.for(TelephonyProtocol, scope).record(cmd))
      const number = stripped !== undefined ? undefined : parsed.guestNumber ?? cmd.facts.from_number
      const data = cmd.event_type !== "call_ringing" ? { ...result, kind: cmd.kind } : {
        ...result, kind: cmd.kind, screen_pop: yield* db.query((sql) => screenPop(sql, integration.tenant_id, number?.startsWith("+") ? number : undefined))
      }
      return is_new ? new CallCreated(ok(data)) : ok(data)
    })

    return handlers
      .handle("cti", ({ payload }) => CurrentIntegration.use((i) => receive(i, payload)))
      .handle("ctiProvider", ({ payload, params }) => CurrentIntegration.use((i) => receive(i, payload, params.provider)))
  }))
