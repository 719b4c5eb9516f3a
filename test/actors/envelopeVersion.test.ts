import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstream } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { randomUUID } from "node:crypto"
import { ReservationProtocol } from "../../actors/reservation/protocol.ts"
import { encode, ENVELOPE_VERSION, type Envelope, type Reply } from "../../streams/envelope.ts"
import { partitionOf } from "../../streams/partition.ts"
import { ingressSubject } from "../../streams/subjects.ts"
import { uniqueId } from "../support/fixtures.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { Replies } from "../../streams/topics.ts"

// Rolling upgrades: envelopes carry their format version. A worker applies its own version and the versionless
// envelopes of releases before the field; one from a newer release is left unacknowledged for a newer worker, never
// applied nor dead-lettered.

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("envversion")
  tenant = await createTenant("envversion")
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

/** A new reservation's upsert envelope, with the given `v` (none: as releases before the field wrote them). */
const envelopeOf = (externalId: string, v: number | undefined): Envelope => ({
  ...(v === undefined ? {} : { v }), id: randomUUID(), actor: "reservation", type: "upsert", tenant_id: tenant.tenant_id, sandbox: false,
  key: externalId, sent_at: Date.now(), reply_to: `_test.reply.${randomUUID()}`,
  payload: ReservationProtocol.codecs.upsert.encodePayload({
    external_id: externalId, hotel_id: tenant.hotel_id, fields: { check_in: "2026-12-01", check_out: "2026-12-03" }, guests: [], warnings: []
  })
})

describe("envelope format versions", () => {
  it("applies its own and versionless envelopes; leaves a newer release's unacknowledged, neither applied nor dead-lettered", async () => {
    const nc = await connect({ servers: platform.config.natsUrl })
    try {
      const js = jetstream(nc)
      const [legacy, current, newer] = [uniqueId("V0"), uniqueId("V1"), uniqueId("V2")]
      const envelopes = [envelopeOf(legacy, undefined), envelopeOf(current, ENVELOPE_VERSION), envelopeOf(newer, ENVELOPE_VERSION + 1)]
      const replies = new Map<string, Reply>()
      const subs = envelopes.map((e) => nc.subscribe(e.reply_to!, { callback: (_err, m) => void replies.set(e.key, Replies.decode(m.data)) }))
      for (const e of envelopes) {
        const subject = ingressSubject(platform.config.namespace, "reservation", partitionOf(tenant.tenant_id, e.key, platform.config.partitions))
        await js.publish(subject, encode(e), { msgID: e.id })
      }
      for (const until = Date.now() + 15_000; (!replies.has(legacy) || !replies.has(current)) && Date.now() < until;) await new Promise((r) => setTimeout(r, 50))
      expect(replies.get(legacy)?.exit._tag).toBe("Success")
      expect(replies.get(current)?.exit._tag).toBe("Success")
      // The newer one: offered, deferred, not applied; nothing recorded for an operator either.
      let deferred = 0
      for (const until = Date.now() + 15_000; deferred === 0 && Date.now() < until;) {
        const metrics = await (await fetch(`${platform.baseUrl}/metrics`)).text()
        deferred = Number(/gep_messages_deferred_total\{actor="reservation",reason="newer_version"\} (\d+)/.exec(metrics)?.[1] ?? 0)
        if (deferred === 0) await new Promise((r) => setTimeout(r, 100))
      }
      expect(deferred).toBeGreaterThan(0)
      expect(replies.has(newer)).toBe(false)
      // Applied: the inbox records every envelope an actor applied.
      const applied = await sql`SELECT envelope_id FROM inbox WHERE envelope_id = ANY(${envelopes.map((e) => e.id)})`
      expect(applied.map((r) => r.envelope_id).sort()).toEqual([envelopes[0]!.id, envelopes[1]!.id].sort())
      const [dead] = await sql`SELECT count(*)::int AS n FROM dead_letters WHERE tenant_id = ${tenant.tenant_id}`
      expect(dead!.n).toBe(0)
      for (const s of subs) s.unsubscribe()
    } finally {
      await nc.close()
    }
  }, 60_000)
})
