import { describe, expect, it } from "@effect/vitest"
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { inject } from "vitest"
import { isConsumerNotFound, isStreamNotFound } from "../../streams/natsErrors.ts"
import { consumerName, ingressStream, outboxStream } from "../../streams/subjects.ts"
import { ensureTopology, resetPartitionConsumer } from "../../streams/topology.ts"
import { ensureSubscriptionConsumer, ensureWebhookTopology, removeSubscriptionConsumer, webhookStream } from "../../streams/webhookTopology.ts"

/** What the server actually answers, recognised by its JetStream API codes (not by the text of its description). */
describe("nats.js failures by code", () => {
  it("tells a missing stream (10059) from a missing consumer (10014), and from anything else", async () => {
    const nc = await connect({ servers: inject("natsUrl").split(",") })
    const jsm = await jetstreamManager(nc)
    const stream = `${inject("namespace")}_natserrors_${Date.now()}`
    const failureOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e)
    try {
      const noStream = await failureOf(jsm.streams.info(stream))
      expect([isStreamNotFound(noStream), isConsumerNotFound(noStream)]).toEqual([true, false])
      const noStreamForConsumer = await failureOf(jsm.consumers.info(stream, "c"))
      expect([isStreamNotFound(noStreamForConsumer), isConsumerNotFound(noStreamForConsumer)]).toEqual([true, false])
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] })
      const noConsumer = await failureOf(jsm.consumers.delete(stream, "c"))
      expect([isStreamNotFound(noConsumer), isConsumerNotFound(noConsumer)]).toEqual([false, true])
      // Same text, no code: not recognised.
      for (const e of [new Error("stream not found"), new Error("consumer not found"), "not found", undefined]) {
        expect([isStreamNotFound(e), isConsumerNotFound(e)]).toEqual([false, false])
      }
    } finally {
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })

  it("the topology creates what is missing, updates what exists, and removes consumers that are already gone", async () => {
    const nc = await connect({ servers: inject("natsUrl").split(",") })
    const jsm = await jetstreamManager(nc)
    const ns = `${inject("namespace")}_natserrors_${Date.now()}`
    const options = { namespace: ns, partitions: 2, replicas: 1, ackWaitMs: 2_000, actors: ["probe"] }
    const subscription = "00000000-0000-4000-8000-000000000001"
    try {
      await ensureTopology(jsm, options)
      await ensureTopology(jsm, options)
      expect((await jsm.consumers.info(ingressStream(ns), consumerName(ns, "probe", 1))).config.durable_name).toBe(consumerName(ns, "probe", 1))
      await jsm.consumers.delete(ingressStream(ns), consumerName(ns, "probe", 0))
      await resetPartitionConsumer(jsm, ns, "probe", 0, 2_000)
      await resetPartitionConsumer(jsm, ns, "probe", 0, 2_000)
      await ensureSubscriptionConsumer(jsm, ns, subscription, 30_000)
      await removeSubscriptionConsumer(jsm, ns, subscription)
      await removeSubscriptionConsumer(jsm, ns, subscription)
      // The fan-out consumer lives on the outbox stream: without it, that failure is not mistaken for a missing consumer.
      await jsm.streams.delete(outboxStream(ns))
      expect(isStreamNotFound(await ensureWebhookTopology(jsm, options).then(() => undefined, (e: unknown) => e))).toBe(true)
    } finally {
      for (const stream of [ingressStream(ns), outboxStream(ns), webhookStream(ns)]) await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })
})
