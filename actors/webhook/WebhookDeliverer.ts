import { Context, Effect, Layer, Redacted } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { Nats } from "../../streams/Nats.ts"
import { natsFailure } from "../../streams/natsErrors.ts"
import { OutboxRelay } from "../runtime/OutboxRelay.ts"
import { deliverOne } from "./attempt.ts"
import { runDateScan, type DateScanResult } from "./dateScan.ts"
import { purgeDeliveryLog } from "./deliveryLog.ts"
import { webhookRetentionSweep } from "./retention.ts"
import { FanOut } from "./FanOut.ts"
import { SubscriptionChannels } from "./SubscriptionChannels.ts"

const CHANNEL_SYNC_MS = 5_000
const PURGE_EVERY_MS = 3_600_000

export interface WebhookDelivererShape {
  /** The date scan at `now` (the periodic timer calls it with the clock). */
  readonly scan: (now: Date, options?: { waitForLock?: boolean }) => Promise<DateScanResult>
  readonly channels: () => number
}

/**
 * The worker side of outbound webhooks: fan-out of outbox webhook commands, one delivery channel per subscription,
 * the reservation date scan (every GEP_WEBHOOK_DATE_SCAN_INTERVAL_MS, a singleton across workers through an advisory
 * lock), the hourly purge of delivery-log rows older than 14 days, and the hourly sweep of emitted bodies, replays
 * and idle sequence counters (retention.ts).
 */
export class WebhookDeliverer extends Context.Service<WebhookDeliverer, WebhookDelivererShape>()("app/webhooks/WebhookDeliverer") {
  static readonly layer = Layer.effect(WebhookDeliverer, Effect.gen(function*() {
    const config = yield* AppConfig
    const webhook = yield* WebhookConfig
    const { sql } = yield* Database
    const { js, jsm } = yield* Nats
    const relay = yield* OutboxRelay
    const published = Effect.runPromiseWith(yield* Effect.context<never>())
    const deps = {
      sql,
      encryptionKey: () => Redacted.value(webhook.encryptionKey),
      allowLoopback: webhook.allowLoopback,
      timeoutMs: webhook.attemptTimeoutMs
    }
    const channels = new SubscriptionChannels({
      sql, js, jsm, namespace: config.namespace,
      ackWaitMs: webhook.attemptTimeoutMs + 30_000,
      handle: (m) => deliverOne(deps, m)
    })
    const fanOut = new FanOut({ sql, js, namespace: config.namespace, attach: (id) => channels.attach(id) })
    const scan = (now: Date, options?: { waitForLock?: boolean }) =>
      runDateScan({ sql, namespace: config.namespace, publish: (m) => published(relay.publishMessages(m)) }, now, options)
    const timers: Array<NodeJS.Timeout> = []
    const every = (ms: number, task: () => Promise<unknown>, name: string) => {
      // A timer callback, outside any fiber: the plain log() (same logger and format).
      const t = setInterval(() => void task().catch((e) => log("warn", `${name} failed`, { error: errorText(e) })), ms)
      t.unref()
      timers.push(t)
    }

    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          await channels.start(CHANNEL_SYNC_MS)
          await fanOut.start()
          every(webhook.dateScanIntervalMs, () => scan(new Date()), "webhook date scan")
          every(PURGE_EVERY_MS, () => purgeDeliveryLog(sql), "webhook delivery log purge")
        },
        // The channel sync catches its own failures; what reaches here is the fan-out consumer not being there.
        catch: natsFailure
      }).pipe(Effect.andThen(Effect.suspend(() =>
        Effect.logInfo("webhook deliverer started").pipe(Effect.annotateLogs({ subscriptions: channels.size }))))),
      // Never rejects: stopping closes consumers and waits for attempts in flight, each catching its own failures.
      () => Effect.promise(async () => {
        timers.forEach(clearInterval)
        await fanOut.stop()
        await channels.stop()
      }).pipe(Effect.andThen(Effect.logInfo("webhook deliverer stopped")))
    )
    yield* Effect.forkScoped(webhookRetentionSweep(sql))
    return WebhookDeliverer.of({ scan, channels: () => channels.size })
  }))
}
