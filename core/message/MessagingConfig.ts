import { Config, Context, Effect, Layer } from "effect"
import { AppConfig } from "../config/AppConfig.ts"

/** How messages leave: provider endpoints, the send policy, and the conversation clock. */
export interface MessagingConfigShape {
  /** GEP_SMTP_URL: `smtp://host:port` (STARTTLS when offered), `smtps://host:465` (TLS); empty: email cannot leave. */
  readonly smtpUrl: string
  /** GEP_WHATSAPP_API_URL: the Cloud API base, version included. */
  readonly whatsAppApiUrl: string
  /** GEP_PUBLIC_BASE_URL: where guests reach this platform (the unsubscribe links in marketing email). */
  readonly publicBaseUrl: string
  /** Whole-attempt deadline of one provider call. */
  readonly sendTimeoutMs: number
  /** Attempts before a temporarily failing send is given up (recorded as failed with the last error). */
  readonly maxAttempts: number
  /** First retry delay; doubled per attempt up to an hour, with jitter. */
  readonly initialBackoffMs: number
  /**
   * A WhatsApp call whose outcome is unknown (the worker died or the answer never came) is not repeated before this
   * long: a status webhook carrying our message id settles it first, and only silence leads to a resend.
   */
  readonly reconcileMs: number
  /** Sends per minute per tenant and channel when the channel sets none. */
  readonly defaultRatePerMinute: number
  /** A conversation with no message for this long is closed (WhatsApp's customer-service window is 24 h). */
  readonly conversationIdleMs: number
  readonly conversationSweepMs: number
  /** How often messages held by quiet hours are looked at for release; they are released this much early. */
  readonly holdSweepMs: number
}

export class MessagingConfig extends Context.Service<MessagingConfig, MessagingConfigShape>()("app/message/MessagingConfig") {
  static readonly config = Config.all({
    smtpUrl: Config.String("GEP_SMTP_URL").pipe(Config.withDefault("")),
    whatsAppApiUrl: Config.String("GEP_WHATSAPP_API_URL").pipe(Config.withDefault("https://graph.facebook.com/v21.0")),
    publicBaseUrl: Config.String("GEP_PUBLIC_BASE_URL").pipe(Config.withDefault("")),
    sendTimeoutMs: Config.Int("GEP_SEND_TIMEOUT_MS").pipe(Config.withDefault(15_000)),
    maxAttempts: Config.Int("GEP_SEND_MAX_ATTEMPTS").pipe(Config.withDefault(8)),
    initialBackoffMs: Config.Int("GEP_SEND_BACKOFF_MS").pipe(Config.withDefault(2_000)),
    reconcileMs: Config.Int("GEP_WHATSAPP_RECONCILE_MS").pipe(Config.withDefault(120_000)),
    defaultRatePerMinute: Config.Int("GEP_SEND_RATE_PER_MINUTE").pipe(Config.withDefault(600)),
    conversationIdleMs: Config.Int("GEP_CONVERSATION_IDLE_MS").pipe(Config.withDefault(24 * 3600 * 1000)),
    conversationSweepMs: Config.Int("GEP_CONVERSATION_SWEEP_MS").pipe(Config.withDefault(60_000)),
    holdSweepMs: Config.Int("GEP_HOLD_SWEEP_MS").pipe(Config.withDefault(5_000))
  })

  /** Without GEP_PUBLIC_BASE_URL, links point at this process's own port on loopback (development). */
  static readonly layer = Layer.effect(MessagingConfig, Effect.gen(function*() {
    const { port } = yield* AppConfig
    const c = yield* MessagingConfig.config
    return MessagingConfig.of({ ...c, publicBaseUrl: (c.publicBaseUrl || `http://127.0.0.1:${port}`).replace(/\/+$/, "") })
  }))
}
