import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstream } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { randomUUID } from "node:crypto"
import { ReservationProtocol } from "../../actors/reservation/protocol.ts"
import { encode, type Envelope, type Reply } from "../../streams/envelope.ts"
import { partitionOf } from "../../streams/partition.ts"
import { ingressSubject } from "../../streams/subjects.ts"
import { reservation } from "../support/fixtures.ts"
import { outboxMessageIds } from "../support/outbox.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker } from "../support/processes.ts"
import { Replies } from "../../streams/topics.ts"

let ingress: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  // Ingress only: the workers of this file are separate processes that the tests kill.
  ingress = await startPlatform("redeliver", { role: "ingress", overrides: { replyTimeoutMs: 4_000 } })
  tenant = await createTenant("redeliver")
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

const stateOf = async (externalId: string) => {
  const [r] = await sql`
    SELECT r.version, (SELECT count(*)::int FROM events e WHERE e.reservation_id = r.id) AS events,
      (SELECT count(*)::int FROM contacts c WHERE c.tenant_id = r.tenant_id) AS contacts
    FROM reservations r WHERE r.tenant_id = ${tenant.tenant_id} AND r.external_id = ${externalId}`
  // The messages the tenant's outboxes wrote, published (rows are deleted then) or waiting in a row.
  return r && { ...(r as { version: number; events: number; contacts: number }), outbox: (await outboxMessageIds(ingress.config.namespace, tenant.tenant_id)).size }
}

describe("exactly-once effects on at-least-once delivery", () => {
  it("a worker killed after commit and before ack: the redelivered envelope changes nothing", async () => {
    const body = reservation({ hotel_code: tenant.hotel_code })
    const doomed = await spawnWorker(ingress.config, { GEP_FAULT_CRASH_AFTER_COMMIT_KEY: body.reservation_id })
    const first = await post(ingress.baseUrl, "/api/v1/reservations", tenant.live_key, body)
    // The worker committed, then died before replying and acking: the ingress cannot confirm.
    expect(first.status).toBe(503)
    expect(first.headers.get("retry-after")).toBe("2")
    expect(await doomed.exited).toBe(128)
    const afterCrash = await stateOf(body.reservation_id)
    expect(afterCrash).toMatchObject({ version: 1, events: 1 })

    const survivor = await spawnWorker(ingress.config, { GEP_LOG_LEVEL: "debug" })
    try {
      const deadline = Date.now() + 15_000
      while (!survivor.stderr().includes('"duplicate":true') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(survivor.stderr()).toContain('"duplicate":true')
      expect(await stateOf(body.reservation_id)).toEqual(afterCrash)

      // The partner retries as told: the upsert applies once more, as an update of the same reservation; the body is
      // the one already applied, so it emits no second booking event (nothing starts twice).
      const retry = await post(ingress.baseUrl, "/api/v1/reservations", tenant.live_key, body)
      expect(retry.status).toBe(200)
      expect(retry.body.data.event_id).toBeNull()
      expect(await stateOf(body.reservation_id)).toMatchObject({ version: 2, events: 1, contacts: afterCrash!.contacts })
    } finally {
      await survivor.stop()
    }
  }, 60_000)

  it("the same envelope delivered twice gets the stored reply and leaves state, events and outbox as they were", async () => {
    const worker = await spawnWorker(ingress.config)
    const nc = await connect({ servers: ingress.config.natsUrl })
    try {
      const js = jetstream(nc)
      const body = reservation({ hotel_code: tenant.hotel_code })
      const ok = await post(ingress.baseUrl, "/api/v1/reservations", tenant.live_key, body)
      expect(ok.status).toBe(201)
      const before = await stateOf(body.reservation_id)

      const hotelId = tenant.hotel_id
      const envelope: Envelope = {
        id: randomUUID(), actor: "reservation", type: "upsert", tenant_id: tenant.tenant_id, sandbox: false,
        key: body.reservation_id, sent_at: Date.now(), reply_to: `_test.reply.${randomUUID()}`,
        payload: ReservationProtocol.codecs.upsert.encodePayload({
          external_id: body.reservation_id, hotel_id: hotelId, fields: { check_in: "2026-12-01", check_out: "2026-12-09", amount: 1 }, guests: [], warnings: []
        })
      }
      const replies: Array<Reply> = []
      const sub = nc.subscribe(envelope.reply_to!, { callback: (_e, m) => void replies.push(Replies.decode(m.data)) })
      const subject = ingressSubject(ingress.config.namespace, "reservation", partitionOf(tenant.tenant_id, body.reservation_id, ingress.config.partitions))
      // Two deliveries of one envelope (distinct stream messages, as after a redelivery the stream dedupe cannot see).
      await js.publish(subject, encode(envelope), { msgID: `${envelope.id}-a` })
      await js.publish(subject, encode(envelope), { msgID: `${envelope.id}-b` })
      const deadline = Date.now() + 10_000
      while (replies.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      sub.unsubscribe()
      expect(replies.length).toBe(2)
      expect(replies[1]).toEqual(replies[0])
      const after = await stateOf(body.reservation_id)
      expect(after).toMatchObject({ version: before!.version + 1, events: before!.events + 1, outbox: before!.outbox + 1 })
      const [inbox] = await sql`SELECT count(*)::int AS n FROM inbox WHERE envelope_id = ${envelope.id}`
      expect(inbox!.n).toBe(1)
    } finally {
      await nc.close()
      await worker.stop()
    }
  }, 60_000)
})
