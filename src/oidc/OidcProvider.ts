import { Config, Context, Effect, Layer, Redacted, Schedule } from "effect"
import type { Provider } from "oidc-provider"
import { Database } from "../../core/db/Database.ts"
import { databaseFailure } from "../../core/db/DatabaseFailure.ts"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { sweepExpired } from "./adapter.ts"
import { ensureSigningKeys, loadSigningKeys, signingKeysVersion } from "./keys.ts"
import { buildProvider, OIDC_PREFIX } from "./provider.ts"

/** How often an ingress looks for a rotated key set (a rotation reaches every ingress within this). */
const KEY_CHECK_MS = 1_000

/**
 * The provider of this ingress. Its keys are read at construction (oidc-provider's rule), so a rotated key set
 * builds a new instance; all its state is in PostgreSQL, so swapping instances loses nothing in flight.
 */
export class OidcProvider extends Context.Service<OidcProvider, {
  readonly current: Effect.Effect<Provider>
  readonly issuer: string
}>()("app/oidc/OidcProvider") {
  static readonly layer = Layer.effect(OidcProvider, Effect.gen(function*() {
    const { sql } = yield* Database
    const key = Redacted.value((yield* WebhookConfig).encryptionKey)
    const publicUrl = yield* Config.String("GEP_PUBLIC_URL").pipe(Config.withDefault(""))
    const issuer = `${(publicUrl || (yield* MessagingConfig).publicBaseUrl).replace(/\/+$/, "")}${OIDC_PREFIX}`
    const build = async () => {
      const version = await signingKeysVersion(sql, key)
      const provider = buildProvider({ issuer, sql, key, jwks: await loadSigningKeys(sql, key) })
      // Behind a TLS-offloading proxy the public URL is https while this process speaks http.
      provider.proxy = issuer.startsWith("https:")
      return { version, provider }
    }
    // Built on first use, not while the server starts (keys may have to be generated first): a request accepted while
    // a route layer was still being built was never answered.
    let state: { version: string; provider: Provider } | undefined
    let pending: Promise<void> | undefined
    let checkedAt = 0
    const refresh = async () => {
      if (state === undefined) await ensureSigningKeys(sql, key)
      checkedAt = Date.now()
      if (state === undefined || (await signingKeysVersion(sql, key)) !== state.version) state = await build()
    }
    // The database failing is a defect carrying the typed DatabaseFailure: the error shape answers 503 when it is away.
    const current = Effect.tryPromise({
      try: async () => {
        if (state === undefined || Date.now() - checkedAt >= KEY_CHECK_MS) {
          pending ??= refresh().finally(() => { pending = undefined })
          // A built provider keeps serving while the key check cannot run (the database away): its own routes then
          // answer OAuth's `temporarily_unavailable`, not the core error shape, and the next request checks again.
          if (state === undefined) await pending
          else await pending.catch(() => undefined)
        }
        return state!.provider
      },
      catch: databaseFailure
    }).pipe(Effect.orDie)
    // Expired provider state and codes are invisible already; this only keeps the tables small.
    yield* Effect.promise(() => sweepExpired(sql)).pipe(
      Effect.catchDefect(() => Effect.void),
      Effect.repeat(Schedule.spaced("1 minute")),
      Effect.forkScoped
    )
    return OidcProvider.of({ current, issuer })
  }))
}
