import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { decodeKey, developmentKey } from "../config/developmentKey.ts"

export interface WebhookConfigShape {
  /** GEP_WEBHOOKS_ALLOW_LOOPBACK=1: loopback targets (and plain http to loopback) allowed. Development and tests only. */
  readonly allowLoopback: boolean
  /** AES-256-GCM key for signing secrets at rest (32 bytes). Never logged. */
  readonly encryptionKey: Redacted.Redacted<Buffer>
  /** Whole-attempt deadline: connect, TLS, request and response status. */
  readonly attemptTimeoutMs: number
}

export class WebhookConfig extends Context.Service<WebhookConfig, WebhookConfigShape>()("app/webhooks/WebhookConfig") {
  static readonly config = Config.all({
    allowLoopback: Config.String("GEP_WEBHOOKS_ALLOW_LOOPBACK").pipe(Config.withDefault("")),
    key: Config.option(Config.Redacted("GEP_WEBHOOK_ENCRYPTION_KEY")),
    // GEP_WEBHOOK_DATE_SCAN_INTERVAL_MS is read by the reservation date scan (actors/shared/ReservationDateScan.ts).
    attemptTimeoutMs: Config.Int("GEP_WEBHOOK_TIMEOUT_MS").pipe(Config.withDefault(10_000))
  })

  static readonly layer = Layer.effect(WebhookConfig, Effect.gen(function*() {
    const c = yield* WebhookConfig.config
    const key = Option.isSome(c.key)
      ? decodeKey(Redacted.value(c.key.value), "GEP_WEBHOOK_ENCRYPTION_KEY")
      : yield* Effect.promise(() => developmentKey("webhook-encryption.key")).pipe(Effect.tap(() =>
        Effect.logWarning("GEP_WEBHOOK_ENCRYPTION_KEY is not set: using the development key in .data/webhook-encryption.key; production must set it")))
    // Only the exact value 1 turns the switch on: no typo or "false" relaxes the SSRF checks by accident.
    const allowLoopback = c.allowLoopback === "1"
    if (allowLoopback) yield* Effect.logWarning("GEP_WEBHOOKS_ALLOW_LOOPBACK=1: webhooks may target loopback (development and tests only)")
    return WebhookConfig.of({
      allowLoopback,
      encryptionKey: Redacted.make(key),
      attemptTimeoutMs: c.attemptTimeoutMs
    })
  }).pipe(Effect.orDie))
}
