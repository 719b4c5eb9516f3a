import { Effect } from "effect"
import { callerScope as scope, orDieOnDatabase } from "../http/handlerContext.ts"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { modeOf } from "../../core/channel/settings.ts"
import { ChannelSettings } from "./ChannelSettings.ts"
import { ok } from "../http/answers.ts"

export const ChannelsLive = HttpApiBuilder.group(Api, "channels", (handlers) =>
  Effect.gen(function*() {
    const settings = yield* ChannelSettings
    return handlers
      .handle("getEmail", () => Effect.flatMap(scope, (s) => orDieOnDatabase(settings.email(s))).pipe(Effect.map(ok)))
      .handle("putEmail", ({ payload }) => Effect.flatMap(scope, (s) => orDieOnDatabase(settings.putEmail(s, payload))).pipe(Effect.map(ok)))
      .handle("getWhatsApp", () => Effect.flatMap(scope, (s) => orDieOnDatabase(settings.whatsApp(s))).pipe(Effect.map(ok)))
      .handle("putWhatsApp", ({ payload }) => Effect.flatMap(scope, (s) => orDieOnDatabase(settings.putWhatsApp(s, payload))).pipe(Effect.map(ok)))
      .handle("putTemplate", ({ params, payload }) =>
        Effect.gen(function*() {
          const s = yield* scope
          const t = yield* orDieOnDatabase(settings.putTemplate(s, { ...params, ...payload }))
          return ok({ mode: modeOf(s), ...t })
        }))
      .handle("removeTemplate", ({ params }) =>
        Effect.gen(function*() {
          const s = yield* scope
          yield* orDieOnDatabase(settings.removeTemplate(s, params.name, params.language))
          return ok({ mode: modeOf(s), name: params.name, language: params.language, removed: true as const })
        }))
  }))
