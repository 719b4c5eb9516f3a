import { Clock, Context, Effect, Layer, Redacted } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { Nats } from "../../streams/Nats.ts"
import { natsFailure } from "../../streams/natsErrors.ts"
import { periodic, runOnce, type PeriodicJob } from "../runtime/periodic.ts"
import { deliverOne } from "./attempt.ts"
import { purgeDeliveryLog } from "./deliveryLog.ts"
import { webhookRetentionSweep } from "./retention.ts"
import { FanOut } from "./FanOut.ts"
import { SubscriptionChannels } from "./SubscriptionChannels.ts"

const CHANNEL_SYNC_MS = 5_000
const PURGE_EVERY_MS = 3_600_000

export interface WebhookDelivererShape {
  readonly channels: () => number
}

/**
 * The worker side of outbound webhooks: fan-out of outbox webhook commands, one delivery channel per subscription
 * (synced with the consumers other workers created every 5 s), the hourly purge of delivery-log rows older than 14
 * days, and the hourly sweep of emitted bodies, replays and idle sequence counters (retention.ts). The periodic jobs
 * are fibers of this layer on the Clock. The reservation date events come from the reservation date scan
 * (actors/shared/ReservationDateScan.ts, its webhook part in dateScan.ts).
 */
export class WebhookDeliverer extends Context.Service<WebhookDeliverer, WebhookDelivererShape>()("app/webhooks/WebhookDeliverer") {
  static readonly layer = Layer.effect(WebhookDeliverer, Effect.gen(function*() {
    const config = yield* AppConfig
    const webhook = yield* WebhookConfig
    const { sql } = yield* Database
    const { js, jsm } = yield* Nats
    // Attempts sign and log with the layer's clock (the test clock in tests).
    const clock = yield* Clock.Clock
    const deps = {
      sql,
      encryptionKey: () => Redacted.value(webhook.encryptionKey),
      allowLoopback: webhook.allowLoopback,
      timeoutMs: webhook.attemptTimeoutMs,
      now: () => new Date(clock.currentTimeMillisUnsafe())
    }
    const channels = new SubscriptionChannels({
      sql, js, jsm, namespace: config.namespace,
      ackWaitMs: webhook.attemptTimeoutMs + 30_000,
      handle: (m) => deliverOne(deps, m)
    })
    const fanOut = new FanOut({ sql, js, namespace: config.namespace, attach: (id) => channels.attach(id) })
    const sync: PeriodicJob = { name: "webhook channel sync", span: "WebhookDeliverer.syncChannels", every: CHANNEL_SYNC_MS, run: () => channels.sync() }

    // The first sync before the fan-out starts, so the channels of consumers other workers created run from the start;
    // a failed one is logged and left to the next. Released last: stopping waits for attempts in flight, each
    // catching its own failures, so it never rejects.
    yield* Effect.acquireRelease(runOnce(sync), () =>
      Effect.promise(() => channels.stop()).pipe(Effect.andThen(Effect.logInfo("webhook deliverer stopped"))))
    // What fails here is the fan-out consumer not being there.
    yield* Effect.acquireRelease(Effect.tryPromise({ try: () => fanOut.start(), catch: natsFailure }), () => Effect.promise(() => fanOut.stop()))
    yield* Effect.logInfo("webhook deliverer started").pipe(Effect.annotateLogs({ subscriptions: channels.size }))
    yield* Effect.forkScoped(periodic(sync))
    yield* Effect.forkScoped(periodic({
      name: "webhook delivery log purge", span: "WebhookDeliverer.purgeDeliveryLog", every: PURGE_EVERY_MS, run: (now) => purgeDeliveryLog(sql, now)
    }))
    yield* Effect.forkScoped(webhookRetentionSweep(sql))
    return WebhookDeliverer.of({ channels: () => channels.size })
  }))
}
