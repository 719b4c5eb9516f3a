import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstream } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { randomUUID } from "node:crypto"
import { ReservationProtocol } from "../../actors/reservation/protocol.ts"
import { encode, type Envelope, type Reply } from "../../streams/envelope.ts"
import { partitionOf } from "../../streams/partition.ts"
import { ingressSubject } from "../../streams/subjects.ts"
import { reservation } from "../support/fixtures.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { Replies } from "../../streams/topics.ts"

/**
 * Defence in depth behind the contract edge: an envelope that reached a worker although its data cannot be stored
 * (here published straight to the stream, past the ingress) is dead-lettered at its first failure, not retried as if
 * the database were away, and its caller is answered with a rejection (422 at the edge), never a defect or a 503.
 * The other envelopes of its group are applied.
 */

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("datafault")
  tenant = await createTenant("datafault")
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const envelopeOf = (externalId: string, comments: string): Envelope => ({
  id: randomUUID(), actor: "reservation", type: "upsert", tenant_id: tenant.tenant_id, sandbox: false, key: externalId,
  sent_at: Date.now(), reply_to: `_test.reply.${randomUUID()}`,
  payload: ReservationProtocol.codecs.upsert.encodePayload({
    external_id: externalId, hotel_id: tenant.hotel_id, fields: { check_in: "2026-12-01", check_out: "2026-12-03", comments }, guests: [], warnings: []
  })
})

describe("an envelope whose data the database refuses", () => {
  it("is dead-lettered at once and answered as rejected; the rest of its group is applied", async () => {
    const nc = await connect({ servers: platform.config.natsUrl })
    try {
      const js = jetstream(nc)
      // Six reservations stored through the API; then an update of each straight to the stream, one with a NUL.
      const ids = await Promise.all(Array.from({ length: 6 }, async () => {
        const body = reservation({ hotel_code: tenant.hotel_code })
        expect((await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, body)).status).toBe(201)
        return body.reservation_id as string
      }))
      const bad = envelopeOf(ids[0]!, "NUL \u0000 inside")
      const good = ids.slice(1).map((id) => envelopeOf(id, "fine"))
      const replies = new Map<string, Reply>()
      const subs = [bad, ...good].map((e) => nc.subscribe(e.reply_to!, { callback: (_err, m) => void replies.set(e.id, Replies.decode(m.data)) }))
      const started = Date.now()
      // Published together, so the worker most likely takes them as one group (the bad one in the middle).
      await Promise.all([...good.slice(0, 2), bad, ...good.slice(2)].map((e) =>
        js.publish(ingressSubject(platform.config.namespace, "reservation", partitionOf(tenant.tenant_id, e.key, platform.config.partitions)), encode(e), { msgID: e.id })))
      while (replies.size < 6 && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 20))
      for (const s of subs) s.unsubscribe()

      expect(replies.get(bad.id)?.exit).toEqual({ _tag: "Rejected", message: "a value cannot be stored (SQLSTATE 22P05)" })
      for (const e of good) expect(replies.get(e.id)?.exit._tag).toBe("Success")
      const [letter] = await sql`SELECT attempts, error FROM dead_letters WHERE envelope_id = ${bad.id}`
      expect(letter).toMatchObject({ attempts: 1, error: expect.stringContaining("Unicode") })
      const stored = await sql`SELECT external_id, comments FROM reservations WHERE tenant_id = ${tenant.tenant_id} AND comments IS NOT NULL`
      expect(stored.map((r) => r.external_id).sort()).toEqual(ids.slice(1).sort())
    } finally {
      await nc.close()
    }
  })
})
