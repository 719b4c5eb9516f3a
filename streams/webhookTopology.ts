import { AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { isConsumerNotFound, isStreamNotFound } from "./natsErrors.ts"
import { STREAM_MAX_AGE_MS } from "./retention.ts"
import { ensureConsumer } from "./consumers.ts"
import { outboxStream, outboxSubject } from "./subjects.ts"

/**
 * Webhook delivery on JetStream. The outbox's `cmd.webhook.*` commands are read by one fan-out consumer, which writes
 * one message per matching subscription onto that subscription's own subject in the WEBHOOKS work queue. Each
 * subscription has its own durable consumer there, so a slow or failing partner only ever holds back its own
 * messages: its ack-pending window, its retries (nak with delay) and its backlog are its own.
 */
export const webhookStream = (ns: string) => `${ns}_WEBHOOKS`
export const deliverySubject = (ns: string, subscriptionId: string) => `${ns}.webhook.deliver.${subscriptionId}`
export const webhookCommandFilter = (ns: string) => outboxSubject(ns, "cmd", "webhook.>")
export const fanOutConsumer = (ns: string) => `${ns}_webhook_fanout`
export const subscriptionConsumer = (ns: string, subscriptionId: string) => `${ns}_wh_${subscriptionId}`
export const subscriptionIdOf = (ns: string, consumerName: string): string | undefined =>
  consumerName.startsWith(`${ns}_wh_`) ? consumerName.slice(`${ns}_wh_`.length) : undefined

/** Messages waiting for retry count here too: beyond this a partner's backlog stays in the stream (back-pressure). */
const PENDING_PER_SUBSCRIPTION = 1_000

export interface WebhookTopologyOptions {
  readonly namespace: string
  readonly replicas: number
}

export const ensureWebhookTopology = async (jsm: JetStreamManager, options: WebhookTopologyOptions): Promise<void> => {
  const ns = options.namespace
  const config = {
    name: webhookStream(ns),
    subjects: [`${ns}.webhook.deliver.*`],
    storage: StorageType.File,
    num_replicas: options.replicas,
    // A delivery message lives until its subscription's consumer acks it (delivered, given up, or subscription gone).
    retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.Old,
    max_age: nanos(STREAM_MAX_AGE_MS),
    duplicate_window: nanos(10 * 60 * 1000)
  }
  try {
    await jsm.streams.info(config.name)
    await jsm.streams.update(config.name, config)
  } catch (e) {
    if (!isStreamNotFound(e)) throw e
    await jsm.streams.add(config)
  }
  await ensureConsumer(jsm, outboxStream(ns), {
    durable_name: fanOutConsumer(ns),
    filter_subject: webhookCommandFilter(ns),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: 256,
    ack_wait: nanos(30_000),
    max_deliver: -1
  })
}

/** The durable consumer of one subscription's deliveries (idempotent). `ackWaitMs` must exceed one attempt's deadline. */
export const ensureSubscriptionConsumer = (jsm: JetStreamManager, ns: string, subscriptionId: string, ackWaitMs: number) =>
  ensureConsumer(jsm, webhookStream(ns), {
    durable_name: subscriptionConsumer(ns, subscriptionId),
    filter_subject: deliverySubject(ns, subscriptionId),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: PENDING_PER_SUBSCRIPTION,
    ack_wait: nanos(ackWaitMs),
    // Attempts are bounded by the subscription's retry policy (which can change), not by the server.
    max_deliver: -1
  })

/** A deleted subscription's consumer and its undelivered messages. */
export const removeSubscriptionConsumer = async (jsm: JetStreamManager, ns: string, subscriptionId: string) => {
  await jsm.consumers.delete(webhookStream(ns), subscriptionConsumer(ns, subscriptionId)).catch((e) => {
    if (!isConsumerNotFound(e)) throw e
  })
  await jsm.streams.purge(webhookStream(ns), { filter: deliverySubject(ns, subscriptionId) })
}
