import { AckPolicy, DeliverPolicy, type JetStreamManager } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { outboxStream, outboxSubject } from "./subjects.ts"
import { ensureConsumer } from "./consumers.ts"

/**
 * Message delivery on JetStream: the message actor writes one `cmd.message.deliver.<channel>` command per queued
 * message to the outbox; each channel has its own durable consumer, so an outage of one provider only holds back its
 * own channel. Retries are naks with a delay; the command lives until the message is sent, failed for good or gone.
 */
export const DeliveryChannels = ["email", "whatsapp"] as const
export type DeliveryChannel = typeof DeliveryChannels[number]

export const deliveryConsumer = (ns: string, channel: DeliveryChannel) => `${ns}_message_deliver_${channel}`
export const deliveryFilter = (ns: string, channel: DeliveryChannel) => outboxSubject(ns, "cmd", `message.deliver.${channel}`)

/** Sends in flight per channel and worker, and what the server lets one consumer hold unacked across workers. */
export const DELIVERY_MAX_ACK_PENDING = 1_000

export const ensureMessageTopology = async (jsm: JetStreamManager, ns: string, ackWaitMs: number): Promise<void> => {
  for (const channel of DeliveryChannels) {
    await ensureConsumer(jsm, outboxStream(ns), {
      durable_name: deliveryConsumer(ns, channel),
      filter_subject: deliveryFilter(ns, channel),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_ack_pending: DELIVERY_MAX_ACK_PENDING,
      ack_wait: nanos(ackWaitMs),
      // attempts are bounded by the send policy (GEP_SEND_MAX_ATTEMPTS), not by the server
      max_deliver: -1
    })
  }
}
