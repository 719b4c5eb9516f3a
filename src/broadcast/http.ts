import { Effect } from "effect"
import { HttpApiBuilder, HttpApiMiddleware } from "effect/http-api"
import type { BroadcastAction } from "../../actors/broadcast/protocol.ts"
import { Api } from "../../schemas/api.ts"
import { BroadcastValidationErrors } from "../../schemas/broadcastApi.ts"
import { ok } from "../http/answers.ts"
import { definitionSchemaErrors } from "../http/definitionErrors.ts"
import { withEtag } from "../http/etag.ts"
import { callerScope as scope, orDieOnDatabase } from "../http/handlerContext.ts"
import { pageRequest } from "../http/paging.ts"
import { Broadcasts } from "./Broadcasts.ts"

/** Schema failures of the broadcasts group: 422 naming each field (src/http/definitionErrors.ts). */
export const BroadcastValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(BroadcastValidationErrors, definitionSchemaErrors)

export const BroadcastsLive = HttpApiBuilder.group(Api, "broadcasts", (handlers) =>
  Effect.gen(function*() {
    const broadcasts = yield* Broadcasts
    const action = (name: BroadcastAction) => ({ params }: { params: { id: string } }) =>
      Effect.flatMap(scope, (s) => orDieOnDatabase(broadcasts.act(s, params.id, name))).pipe(Effect.map(ok))
    return handlers
      .handle("create", Effect.fn("Broadcasts.http.create")(function*({ payload }) {
        const saved = yield* orDieOnDatabase(broadcasts.create(yield* scope, payload))
        yield* withEtag(saved.version)
        return ok(saved)
      }))
      .handle("list", Effect.fn("Broadcasts.http.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        return ok(yield* orDieOnDatabase(broadcasts.list(yield* scope, page)))
      }))
      .handle("get", Effect.fn("Broadcasts.http.get")(function*({ params }) {
        const found = yield* orDieOnDatabase(broadcasts.get(yield* scope, params.id))
        yield* withEtag(found.version)
        return ok(found)
      }))
      .handle("update", Effect.fn("Broadcasts.http.update")(function*({ params, headers, payload }) {
        const saved = yield* orDieOnDatabase(broadcasts.update(yield* scope, params.id, payload, headers["if-match"]))
        yield* withEtag(saved.version)
        return ok(saved)
      }))
      .handle("schedule", action("schedule"))
      .handle("send", action("send"))
      .handle("pause", action("pause"))
      .handle("resume", action("resume"))
      .handle("cancel", action("cancel"))
      .handle("test", Effect.fn("Broadcasts.http.test")(function*({ params, payload }) {
        return ok(yield* orDieOnDatabase(broadcasts.test(yield* scope, params.id, payload.to)))
      }))
      .handle("getSettings", () => Effect.flatMap(scope, (s) => orDieOnDatabase(broadcasts.settings(s))).pipe(Effect.map(ok)))
      .handle("updateSettings", ({ payload }) =>
        Effect.flatMap(scope, (s) => orDieOnDatabase(broadcasts.settings(s, payload.marketing_frequency_cap_hours))).pipe(Effect.map(ok)))
      .handle("recipients", Effect.fn("Broadcasts.http.recipients")(function*({ params, query }) {
        const page = yield* pageRequest(query)
        return ok(yield* orDieOnDatabase(broadcasts.recipients(yield* scope, params.id, query.status, page)))
      }))
  }))
