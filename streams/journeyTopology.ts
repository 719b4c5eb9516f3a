import { AckPolicy, DeliverPolicy, type JetStreamManager } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { outboxStream, outboxSubject } from "./subjects.ts"
import { ensureConsumer } from "./consumers.ts"

/**
 * Journeys hear every family through the outbox's domain events (`evt.*`): one durable consumer turns each into
 * signals for the journey actors of the contacts it concerns. Created delivering only new events, so a deployment that
 * adds journeys does not replay the week of events the outbox still holds.
 */
export const journeySignalConsumer = (ns: string) => `${ns}_journey_signals`
export const journeySignalFilter = (ns: string) => outboxSubject(ns, "evt", ">")

/** Events pulled and not yet acked across the deployment's routers. */
export const SIGNAL_MAX_ACK_PENDING = 1_000

export const ensureJourneyTopology = (jsm: JetStreamManager, ns: string): Promise<void> =>
  ensureConsumer(jsm, outboxStream(ns), {
    durable_name: journeySignalConsumer(ns),
    filter_subject: journeySignalFilter(ns),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
    max_ack_pending: SIGNAL_MAX_ACK_PENDING,
    ack_wait: nanos(30_000),
    max_deliver: -1
  })
