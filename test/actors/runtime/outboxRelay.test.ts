import { afterAll, beforeAll, describe, expect, inject, it } from "@effect/vitest"
import { jetstream, jetstreamManager, RetentionPolicy, type JetStreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { makeOutboxRelay, OUTBOX_VERSION } from "../../../actors/runtime/OutboxRelay.ts"
import { encode } from "../../../streams/envelope.ts"
import { createTenant, testSql } from "../../support/platform.ts"

// Deployments sharing a database (every test file's platform; a staged migration) each sweep their own outbox rows.

const sql = testSql()
const ns = `relay_${randomUUID().slice(0, 8)}`
let nc: NatsConnection
let jsm: JetStreamManager

beforeAll(async () => {
  nc = await connect({ servers: inject("natsUrl") })
  jsm = await jetstreamManager(nc)
  await jsm.streams.add({ name: `${ns}_TEST`, subjects: [`${ns}.x.>`], retention: RetentionPolicy.Limits })
})
afterAll(async () => {
  await jsm?.streams.delete(`${ns}_TEST`).catch(() => undefined)
  await nc?.close()
  await sql.end()
})

const insertOld = (id: string, tenantId: string, subject: string) =>
  sql`INSERT INTO outbox (id, tenant_id, subject, payload, created_at)
    VALUES (${id}, ${tenantId}, ${subject}, ${Buffer.from(encode({ hello: subject }))}, now() - interval '1 minute')`

describe("the outbox relay's sweep", () => {
  it("publishes its own deployment's rows and leaves another's, whose streams it does not have, for that deployment", async () => {
    const tenant = await createTenant("relay")
    const own = randomUUID()
    const foreign = randomUUID()
    // The other deployment's namespace starts like this one's: only the whole name and its dot count.
    await insertOld(foreign, tenant.tenant_id, `${ns}x.x.one`)
    await insertOld(own, tenant.tenant_id, `${ns}.x.one`)
    try {
      await Effect.runPromise(makeOutboxRelay(sql, jetstream(nc), ns).sweep(0))
      // A published row is deleted: the stream is the log of what was published.
      const left = new Set((await sql`SELECT id FROM outbox WHERE id IN (${own}, ${foreign})`).map((r) => r.id as string))
      expect([left.has(own), left.has(foreign)]).toEqual([false, true])
      expect((await jsm.streams.info(`${ns}_TEST`)).state.messages).toBe(1)
    } finally {
      await sql`DELETE FROM outbox WHERE id = ${foreign}`
    }
  })

  it("leaves rows a newer release wrote (a newer protocol_version) for that release's relay", async () => {
    const tenant = await createTenant("relayv")
    const [current, newer] = [randomUUID(), randomUUID()]
    await insertOld(current, tenant.tenant_id, `${ns}.x.two`)
    await insertOld(newer, tenant.tenant_id, `${ns}.x.two`)
    await sql`UPDATE outbox SET protocol_version = ${OUTBOX_VERSION + 1} WHERE id = ${newer}`
    try {
      const before = (await jsm.streams.info(`${ns}_TEST`)).state.messages
      await Effect.runPromise(makeOutboxRelay(sql, jetstream(nc), ns).sweep(0))
      const left = new Set((await sql`SELECT id FROM outbox WHERE id IN (${current}, ${newer})`).map((r) => r.id as string))
      expect([left.has(current), left.has(newer)]).toEqual([false, true])
      expect((await jsm.streams.info(`${ns}_TEST`)).state.messages).toBe(before + 1)
    } finally {
      await sql`DELETE FROM outbox WHERE id = ${newer}`
    }
  })

  it("deletes the rows it published at its next flush, nothing else", async () => {
    const tenant = await createTenant("relayd")
    const [published, waiting] = [randomUUID(), randomUUID()]
    await insertOld(published, tenant.tenant_id, `${ns}.x.three`)
    await insertOld(waiting, tenant.tenant_id, `${ns}.x.three`)
    try {
      const before = (await jsm.streams.info(`${ns}_TEST`)).state.messages
      const relay = makeOutboxRelay(sql, jetstream(nc), ns)
      await Effect.runPromise(relay.publishMessages([{ id: published, subject: `${ns}.x.three`, payload: { hello: "three" } }]))
      expect((await sql`SELECT id FROM outbox WHERE id = ${published}`).length).toBe(1)
      await Effect.runPromise(relay.flush)
      const left = new Set((await sql`SELECT id FROM outbox WHERE id IN (${published}, ${waiting})`).map((r) => r.id as string))
      expect([left.has(published), left.has(waiting)]).toEqual([false, true])
      expect((await jsm.streams.info(`${ns}_TEST`)).state.messages).toBe(before + 1)
    } finally {
      await sql`DELETE FROM outbox WHERE id = ${waiting}`
    }
  })
})
