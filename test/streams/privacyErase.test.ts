import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { randomUUID } from "node:crypto"
import { inject } from "vitest"
import type { TenantScope } from "../../core/TenantScope.ts"
import { nextOn, streamMarks } from "../../streams/drain.ts"
import { decode, encode, ENVELOPE_VERSION, type Envelope } from "../../streams/envelope.ts"
import { eraseStreamMessages } from "../../streams/eraseMessages.ts"
import { namesSubject } from "../../streams/namesSubject.ts"
import { partitionOf } from "../../streams/partition.ts"
import { ingressStream, ingressSubject, outboxStream, outboxSubject } from "../../streams/subjects.ts"
import type { DeliverCommandSchema, DeliveryJobSchema, DomainEvent, WebhookCommandSchema } from "../../streams/topics.ts"
import { ensureTopology } from "../../streams/topology.ts"
import { deliverySubject, ensureSubscriptionConsumer, webhookStream } from "../../streams/webhookTopology.ts"

// An erasure's stream part on the real server (streams/eraseMessages.ts): on the deployment's three streams, the
// messages up to the marks that name the subject are deleted by sequence, every other one stays as it was.

let nc: NatsConnection
let js: JetStreamClient
let jsm: JetStreamManager
const ns = `${inject("namespace")}_perase${Date.now().toString(36)}`
const PARTITIONS = 4

type DeliverCommand = typeof DeliverCommandSchema.Type
type DeliveryJob = typeof DeliveryJobSchema.Type
type WebhookCommand = typeof WebhookCommandSchema.Type

const scope: TenantScope = { tenant_id: randomUUID(), sandbox: false }
const otherTenant: TenantScope = { tenant_id: randomUUID(), sandbox: false }
const contactId = randomUUID()
const companionId = randomUUID()
const email = `anna.${Date.now()}@example.com`
const phone = "+34600111222"
const subject = {
  scope, contactIds: [contactId], names: ["Anna Erased"],
  identifiers: [{ kind: "email" as const, value: email }, { kind: "phone" as const, value: phone }]
}
const companion = { id: companionId, email: `bea.${Date.now()}@example.com`, phone: "+34600333444", first_name: "Bea" }

beforeAll(async () => {
  nc = await connect({ servers: inject("natsUrl").split(",") })
  js = jetstream(nc)
  jsm = await jetstreamManager(nc)
  await ensureTopology(jsm, { namespace: ns, partitions: PARTITIONS, replicas: 1, ackWaitMs: 30_000, actors: ["reservation"] })
})
afterAll(async () => {
  for (const s of [ingressStream(ns), outboxStream(ns), webhookStream(ns)]) await jsm.streams.delete(s).catch(() => undefined)
  await nc.close()
})

/** Publishes and returns the message's stream and sequence. */
const put = async (subjectName: string, value: unknown) => {
  const ack = await js.publish(subjectName, encode(value))
  return { stream: ack.stream, seq: ack.seq }
}

const envelope = (s: TenantScope, key: string, payload: unknown): Envelope => ({
  v: ENVELOPE_VERSION, id: randomUUID(), actor: "reservation", type: "upsert", tenant_id: s.tenant_id, sandbox: s.sandbox, key,
  payload, sent_at: Date.now()
})
const ingress = (s: TenantScope, key: string, payload: unknown) =>
  put(ingressSubject(ns, "reservation", partitionOf(s.tenant_id, key, PARTITIONS)), envelope(s, key, payload))

const event = (s: TenantScope, type: string, contact: string | null, data: Record<string, unknown>) =>
  put(outboxSubject(ns, "evt", type), {
    ...s, occurred_at: new Date().toISOString(), event_id: randomUUID(), event_type: type, contact_id: contact, data
  } satisfies DomainEvent)
const webhookCommand = (s: TenantScope, contact: Record<string, unknown>) =>
  put(outboxSubject(ns, "cmd", "webhook.contact.updated"), {
    ...s, occurred_at: new Date().toISOString(), event_type: "contact.updated", data: { contact }
  } satisfies WebhookCommand)
const job = (subscriptionId: string, contact: Record<string, unknown>) =>
  put(deliverySubject(ns, subscriptionId), {
    event_id: randomUUID(), subscription_id: subscriptionId, ...scope, event_type: "contact.updated",
    body: JSON.stringify({ event_type: "contact.updated", data: { contact } })
  } satisfies DeliveryJob)

const stored = (stream: string, seq: number) => jsm.streams.getMessage(stream, { seq })

/** Every message of a stream up to `mark` (one by one: the test's streams are small). */
const remaining = async (stream: string, mark: number) => {
  const out = []
  for (let seq = 1; seq <= mark;) {
    const m = await jsm.streams.getMessage(stream, nextOn(">", seq))
    if (m === null || m.seq > mark) break
    out.push(m)
    seq = m.seq + 1
  }
  return out
}

describe("eraseStreamMessages", () => {
  it("deletes by sequence the messages up to the marks that name the subject, on every stream, and nothing else", async () => {
    const subscriptionId = randomUUID()
    await ensureSubscriptionConsumer(jsm, ns, subscriptionId, 30_000)
    const erased = [
      await ingress(scope, "R-1", { guests: [{ first_name: "Anna", email: email.toUpperCase(), is_holder: true }, { email: companion.email }] }),
      await ingress(scope, "R-2", { guests: [{ phone: "+34 600 11 12 22" }] }),
      await event(scope, "contact.created", contactId, {}),
      await event(scope, "reservation.created", companionId, { guests: [{ email: companion.email }, { name: "Anna Erased" }] }),
      await webhookCommand(scope, { id: contactId, email, phone, first_name: "Anna" }),
      await job(subscriptionId, { id: contactId, email, phone })
    ]
    const kept = [
      await ingress(scope, "R-3", { guests: [{ first_name: "Bea", email: companion.email, phone: companion.phone }] }),
      await ingress(otherTenant, "R-1", { guests: [{ email, phone }] }),
      await event(scope, "contact.created", companionId, { source: "pms" }),
      await webhookCommand(scope, companion),
      await webhookCommand({ ...scope, sandbox: true }, { id: randomUUID(), email }),
      await put(outboxSubject(ns, "cmd", "message.deliver.email"), { ...scope, message_id: randomUUID(), channel: "email" } satisfies DeliverCommand),
      await job(subscriptionId, companion)
    ]
    const marks = await streamMarks(jsm, ns)
    const later = await event(scope, "contact.updated", contactId, { email })
    const before = new Map(await Promise.all(kept.map(async (k) => [`${k.stream}:${k.seq}`, (await stored(k.stream, k.seq))!.data] as const)))

    const results = await eraseStreamMessages({ js, jsm }, ns, marks, namesSubject(subject))

    expect(results).toEqual([
      { store: `stream:${ingressStream(ns)}`, action: "deleted", count: 2 },
      { store: `stream:${outboxStream(ns)}`, action: "deleted", count: 3 },
      { store: `stream:${webhookStream(ns)}`, action: "deleted", count: 1 }
    ])
    for (const e of erased) expect(await stored(e.stream, e.seq), `${e.stream}:${e.seq} erased`).toBeNull()
    for (const k of kept) expect((await stored(k.stream, k.seq))?.data, `${k.stream}:${k.seq} kept`).toEqual(before.get(`${k.stream}:${k.seq}`))
    expect(await stored(later.stream, later.seq)).not.toBeNull()
    // Nothing left up to the marks decodes to anything that names the subject.
    const named = namesSubject(subject)
    for (const [stream, mark] of Object.entries(marks)) {
      for (const m of await remaining(stream, mark)) expect(named(decode(m.data), m.data), `${stream}:${m.seq}`).toBe(false)
    }
    // Resumed: nothing more to delete.
    expect((await eraseStreamMessages({ js, jsm }, ns, marks, named)).map((r) => r.count)).toEqual([0, 0, 0])
  })

  it("scans a week's outbox and a work queue's backlog in bounded batches", async () => {
    const OUTBOX_MESSAGES = 20_000
    const INGRESS_MESSAGES = 2_000
    const publishAll = async (n: number, make: (i: number) => Promise<unknown>) => {
      for (let i = 0; i < n; i += 500) await Promise.all(Array.from({ length: Math.min(500, n - i) }, (_, j) => make(i + j)))
    }
    const guest = (i: number) => ({ id: randomUUID(), email: `guest${i}@example.org`, phone: `+3460${String(1_000_000 + i).padStart(7, "0")}`, first_name: "Guest", last_name: `N${i}` })
    const named = (i: number) => i % 1_000 === 7
    await publishAll(OUTBOX_MESSAGES, (i) =>
      named(i) ? webhookCommand(scope, { id: contactId, email }) : event(scope, "reservation.updated", randomUUID(), { reservation: { id: randomUUID(), guests: [guest(i), guest(i + 1)] } }))
    await publishAll(INGRESS_MESSAGES, (i) => ingress(scope, `B-${i}`, { guests: named(i) ? [{ email }] : [guest(i)] }))
    const marks = await streamMarks(jsm, ns)
    const progress: Array<number> = []

    const timed = async (stream: string) => {
      const t0 = performance.now()
      const [result] = await eraseStreamMessages({ js, jsm }, ns, { [stream]: marks[stream]! }, namesSubject(subject), {
        batch: 500, onProgress: (p) => progress.push(p.scanned)
      })
      return { count: result!.count, ms: performance.now() - t0 }
    }
    const outbox = await timed(outboxStream(ns))
    const workQueue = await timed(ingressStream(ns))
    // and the first test's event published after its marks, before these
    expect(outbox.count).toBe(OUTBOX_MESSAGES / 1_000 + 1)
    expect(workQueue.count).toBe(INGRESS_MESSAGES / 1_000)
    const outboxHeld = marks[outboxStream(ns)]!
    const ingressHeld = (await jsm.streams.info(ingressStream(ns))).state.messages + workQueue.count
    console.info(`stream erasure scan: outbox ${outboxHeld} messages in ${outbox.ms.toFixed(0)} ms (${Math.round(outboxHeld / outbox.ms * 1000)}/s); ` +
      `work queue ${ingressHeld} messages in ${workQueue.ms.toFixed(0)} ms (${Math.round(ingressHeld / workQueue.ms * 1000)}/s)`)
    // Progress was reported batch by batch, not once at the end.
    expect(progress.length).toBeGreaterThan(OUTBOX_MESSAGES / 500)
  })

  it("stops between batches when the caller's signal aborts", async () => {
    const marks = await streamMarks(jsm, ns)
    const controller = new AbortController()
    controller.abort(new Error("time is up"))
    await expect(eraseStreamMessages({ js, jsm }, ns, marks, namesSubject(subject), { signal: controller.signal })).rejects.toThrow("time is up")
  })
})
