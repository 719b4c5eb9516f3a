import { AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import {
  consumerName, ingressStream, ingressSubject, ingressWildcard, outboxStream, outboxWildcards
} from "./subjects.ts"
import { isConsumerNotFound, isStreamNotFound } from "./natsErrors.ts"
import { STREAM_MAX_AGE_MS } from "./retention.ts"
import { ensureJourneyTopology } from "./journeyTopology.ts"
import { ensureMessageTopology } from "./messageTopology.ts"
import { ensureWebhookTopology } from "./webhookTopology.ts"

export interface TopologyOptions {
  readonly namespace: string
  readonly partitions: number
  readonly replicas: number
  readonly ackWaitMs: number
  /** The actor types (their protocols' names): one durable consumer per type and partition. */
  readonly actors: ReadonlyArray<string>
  /** Ack wait of the message deliver consumers: longer than one send attempt can take (default 60 s). */
  readonly deliveryAckWaitMs?: number
}

const ensureStream = async (
  jsm: JetStreamManager,
  name: string,
  subjects: Array<string>,
  retention: RetentionPolicy,
  options: TopologyOptions
) => {
  const config = {
    name,
    subjects,
    storage: StorageType.File,
    num_replicas: options.replicas,
    retention,
    discard: DiscardPolicy.Old,
    max_age: nanos(STREAM_MAX_AGE_MS),
    // Window within which a republished Nats-Msg-Id is acknowledged as a duplicate and not stored again.
    duplicate_window: nanos(10 * 60 * 1000)
  }
  try {
    await jsm.streams.info(name)
    await jsm.streams.update(name, config)
  } catch (e) {
    if (!isStreamNotFound(e)) throw e
    await jsm.streams.add(config)
  }
}

export const partitionConsumerConfig = (ns: string, actor: string, partition: number, ackWaitMs: number) => ({
  durable_name: consumerName(ns, actor, partition),
  filter_subject: ingressSubject(ns, actor, partition),
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.All,
  // Bounded in-flight per partition: back-pressure instead of unbounded mailboxes.
  max_ack_pending: 512,
  ack_wait: nanos(ackWaitMs),
  // Never give up on a message: poison messages go to dead_letters by the worker, not into oblivion.
  max_deliver: -1
})

/**
 * A new owner of a partition starts from a fresh consumer: the stream (a work queue) still holds every unacked
 * message, and a fresh consumer delivers them at once and in stream order. Reusing the old consumer would hold the
 * previous owner's unacked messages back until their ack wait ran out while newer ones flowed, breaking per-key order.
 */
export const resetPartitionConsumer = async (jsm: JetStreamManager, ns: string, actor: string, partition: number, ackWaitMs: number) => {
  await jsm.consumers.delete(ingressStream(ns), consumerName(ns, actor, partition)).catch((e) => {
    if (!isConsumerNotFound(e)) throw e
  })
  await jsm.consumers.add(ingressStream(ns), partitionConsumerConfig(ns, actor, partition, ackWaitMs))
}

/** Creates or updates the streams and the per-partition durable consumers; safe to run from every process. */
export const ensureTopology = async (jsm: JetStreamManager, options: TopologyOptions): Promise<void> => {
  const ns = options.namespace
  // Ingress is a work queue (a message lives until its partition's consumer acks it); the outbox is a log that
  // later consumers (webhooks, journeys) read at their own pace within its age limit.
  await ensureStream(jsm, ingressStream(ns), [ingressWildcard(ns)], RetentionPolicy.Workqueue, options)
  await ensureStream(jsm, outboxStream(ns), outboxWildcards(ns), RetentionPolicy.Limits, options)
  for (const actor of options.actors) {
    for (let p = 0; p < options.partitions; p++) {
      const name = consumerName(ns, actor, p)
      try {
        await jsm.consumers.info(ingressStream(ns), name)
      } catch (e) {
        if (!isConsumerNotFound(e)) throw e
        await jsm.consumers.add(ingressStream(ns), partitionConsumerConfig(ns, actor, p, options.ackWaitMs))
      }
    }
  }
  await ensureWebhookTopology(jsm, { namespace: ns, replicas: options.replicas })
  await ensureMessageTopology(jsm, ns, options.deliveryAckWaitMs ?? 60_000)
  await ensureJourneyTopology(jsm, ns)
}

/** True when the streams exist (readiness). */
export const topologyPresent = async (jsm: JetStreamManager, namespace: string): Promise<boolean> => {
  try {
    await jsm.streams.info(ingressStream(namespace))
    await jsm.streams.info(outboxStream(namespace))
    return true
  } catch {
    return false
  }
}
