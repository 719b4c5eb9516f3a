import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { inject } from "vitest"
import { drained, streamMarks } from "../../streams/drain.ts"
import { encode } from "../../streams/envelope.ts"
import { ensureJourneyTopology, journeySignalConsumer } from "../../streams/journeyTopology.ts"
import { consumerName, ingressStream, ingressSubject, outboxStream, outboxSubject } from "../../streams/subjects.ts"
import { ensureTopology, resetPartitionConsumer } from "../../streams/topology.ts"
import { ensureWebhookTopology, fanOutConsumer, webhookStream } from "../../streams/webhookTopology.ts"

// The drain an erasure waits for (streams/drain.ts), on the real server: a work queue by what it still holds, whatever
// becomes of its consumers; a limits stream by each durable consumer's acks, whatever its filter and however new it is.

let nc: NatsConnection
let js: JetStreamClient
let jsm: JetStreamManager
const ns = `${inject("namespace")}_drain${Date.now().toString(36)}`
const options = { namespace: ns, partitions: 2, replicas: 1, ackWaitMs: 30_000, actors: ["probe"] }

beforeAll(async () => {
  nc = await connect({ servers: inject("natsUrl").split(",") })
  js = jetstream(nc)
  jsm = await jetstreamManager(nc)
  await ensureTopology(jsm, options)
})
afterAll(async () => {
  for (const s of [ingressStream(ns), outboxStream(ns), webhookStream(ns)]) await jsm.streams.delete(s).catch(() => undefined)
  await nc.close()
})

const publish = async (subject: string, n: number) => {
  for (let i = 0; i < n; i++) await js.publish(subject, encode({ tenant_id: "t", sandbox: false, n: i }))
}

/** Takes `n` messages off a durable consumer; acks those `ack` picks (all by default), waiting for the server's word. */
const take = async (stream: string, consumer: string, n: number, ack: (i: number) => boolean = () => true) => {
  const c = await js.consumers.get(stream, consumer)
  const got = []
  for await (const m of await c.fetch({ max_messages: n, expires: 2_000 })) got.push(m)
  expect(got).toHaveLength(n)
  for (const [i, m] of got.entries()) if (ack(i)) await m.ackAck()
  return got
}

const behindOf = async (marks: Record<string, number>) => {
  const state = await drained(jsm, ns, marks)
  expect(state.drained).toBe(state.behind.length === 0)
  return state.behind.map((b) => ("consumer" in b ? `${b.stream}/${b.consumer}@${b.next_seq}` : `${b.stream}@${b.first_seq}:${b.subject}`)).sort()
}

describe("drained", () => {
  it("a work queue is drained when it holds nothing at or before the mark, whatever its consumers are", async () => {
    const p0 = ingressSubject(ns, "probe", 0)
    const p1 = ingressSubject(ns, "probe", 1)
    await publish(p0, 3)
    await publish(p1, 2)
    const marks = await streamMarks(jsm, ns)
    expect(marks[ingressStream(ns)]).toBe(5)
    expect(await behindOf(marks)).toEqual([`${ingressStream(ns)}@1:${p0}`])

    // A new owner starts a fresh consumer: still behind, it has acked nothing.
    await resetPartitionConsumer(jsm, ns, "probe", 0, 30_000)
    expect(await behindOf(marks)).toEqual([`${ingressStream(ns)}@1:${p0}`])
    // Deleted and not yet re-created: the messages it would take are still there, so still behind.
    await jsm.consumers.delete(ingressStream(ns), consumerName(ns, "probe", 0))
    expect(await behindOf(marks)).toEqual([`${ingressStream(ns)}@1:${p0}`])
    await resetPartitionConsumer(jsm, ns, "probe", 0, 30_000)

    // One message of partition 0 applied and its ack pending (the worker is on it): still behind, at it.
    const [first] = await take(ingressStream(ns), consumerName(ns, "probe", 0), 3, (i) => i > 0)
    expect(await behindOf(marks)).toEqual([`${ingressStream(ns)}@1:${p0}`])
    await first!.ackAck()
    expect(await behindOf(marks)).toEqual([`${ingressStream(ns)}@4:${p1}`])

    // What arrives after the mark does not hold the drain.
    await publish(p1, 2)
    await take(ingressStream(ns), consumerName(ns, "probe", 1), 2)
    expect(await behindOf(marks)).toEqual([])
    expect((await drained(jsm, ns, marks)).drained).toBe(true)
    await take(ingressStream(ns), consumerName(ns, "probe", 1), 2)
  })

  it("a limits stream waits for every durable consumer past the mark; a fresh one reads from the start; ordered readers do not count", async () => {
    const events = outboxSubject(ns, "evt", "contact.created")
    const webhooks = outboxSubject(ns, "cmd", "webhook.contact.created")
    const before = (await jsm.streams.info(outboxStream(ns))).state.last_seq
    await publish(events, 3)
    await publish(webhooks, 2)
    const first = before + 1
    // An ordered reader that stopped part way: no one's work, ignored.
    const reader = await js.consumers.get(outboxStream(ns), { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: first })
    expect((await reader.next({ expires: 2_000 }))?.seq).toBe(first)

    const marks = await streamMarks(jsm, ns)
    const fanOut = (seq: number) => `${outboxStream(ns)}/${fanOutConsumer(ns)}@${seq}`
    const signals = (seq: number) => `${outboxStream(ns)}/${journeySignalConsumer(ns)}@${seq}`
    // The message delivery consumers' filters matched nothing (ack floor 0): not behind.
    expect(await behindOf(marks)).toEqual([signals(first), fanOut(first + 3)])

    await take(outboxStream(ns), journeySignalConsumer(ns), 3)
    expect(await behindOf(marks)).toEqual([fanOut(first + 3)])
    // Acked out of order: the floor stays before the first one, which still holds the drain.
    const [firstCommand] = await take(outboxStream(ns), fanOutConsumer(ns), 2, (i) => i === 1)
    expect(await behindOf(marks)).toEqual([fanOut(first + 3)])
    await firstCommand!.ackAck()
    expect(await behindOf(marks)).toEqual([])

    // Pending acks after the mark do not hold it.
    await publish(webhooks, 1)
    await take(outboxStream(ns), fanOutConsumer(ns), 1, () => false)
    expect(await behindOf(marks)).toEqual([])

    // Deleted and created afresh (delivering all): it reads the week again and is behind until it has caught up.
    await jsm.consumers.delete(outboxStream(ns), fanOutConsumer(ns))
    await ensureWebhookTopology(jsm, { namespace: ns, replicas: 1 })
    expect(await behindOf(marks)).toEqual([fanOut(first + 3)])
    await take(outboxStream(ns), fanOutConsumer(ns), 3)
    expect(await behindOf(marks)).toEqual([])

    // Created afresh delivering only new events: nothing before it is its work.
    await jsm.consumers.delete(outboxStream(ns), journeySignalConsumer(ns))
    await ensureJourneyTopology(jsm, ns)
    expect(await behindOf(marks)).toEqual([])

    // A consumer added later reading from the start with a filter of its own.
    await jsm.consumers.add(outboxStream(ns), {
      durable_name: `${ns}_late`, filter_subject: events, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All
    })
    expect(await behindOf(marks)).toEqual([`${outboxStream(ns)}/${ns}_late@${first}`])
    await take(outboxStream(ns), `${ns}_late`, 3)
    expect((await drained(jsm, ns, marks)).drained).toBe(true)
  })

  it("marks name every stream of the namespace and no other's; a stream gone since holds nothing back", async () => {
    const marks = await streamMarks(jsm, ns)
    expect(Object.keys(marks).sort()).toEqual([ingressStream(ns), outboxStream(ns), webhookStream(ns)].sort())
    expect((await drained(jsm, ns, { ...marks, [`${ns}_GONE`]: 10 })).drained).toBe(true)
  })
})
