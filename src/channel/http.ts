import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { type DatabaseFailure, isDatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { modeOf } from "../../core/channel/settings.ts"
import { ChannelSettings } from "./ChannelSettings.ts"

const ok = <A>(data: A) => ({ success: true as const, data })

/** The calling key's account and mode: a sandbox key configures the sandbox channels, a live key the live ones. */
const scope = Effect.gen(function*() {
  const p = yield* CurrentPrincipal
  return { tenant_id: p.tenant_id, sandbox: p.sandbox } satisfies TenantScope
})

/** No endpoint here declares a database failure: it becomes a defect the error shape answers (503 when away). */
const orDieOnDatabase = <A, E>(effect: Effect.Effect<A, E | DatabaseFailure>): Effect.Effect<A, Exclude<E, DatabaseFailure>> =>
  effect.pipe(Effect.catchIf(isDatabaseFailure, Effect.die)) as Effect.Effect<A, Exclude<E, DatabaseFailure>>

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
