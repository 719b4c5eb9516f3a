import { afterAll, beforeAll, describe, expect, inject, it } from "@effect/vitest"
import { jetstream, jetstreamManager, RetentionPolicy, type JetStreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import fc from "fast-check"
import { randomUUID } from "node:crypto"
import postgres from "postgres"
import {
  CLOCK_SKEW_MS, FLOOR_LIFE_MS, inboxCutoff, measuredFloor, sweepInboxOnce
} from "../../../actors/runtime/inboxRetention.ts"
import { ingressStream } from "../../../streams/subjects.ts"
import { ownDatabase } from "../../support/ownDatabase.ts"

describe("the inbox cutoff", () => {
  const floor = fc.record({ floorAt: fc.integer({ min: 0, max: 2e12 }), measuredAt: fc.integer({ min: 0, max: 2e12 }) })
  it("is the oldest of the retention window and every floor measured within the stream's age limit", () => {
    fc.assert(fc.property(fc.integer({ min: 1e12, max: 2e12 }), fc.integer({ min: 0, max: 1e9 }), fc.array(floor, { maxLength: 6 }), (now, retention, floors) => {
      const cut = inboxCutoff(now, retention, floors)
      expect(cut).toBeLessThanOrEqual(now - retention)
      for (const f of floors) if (now - f.measuredAt <= FLOOR_LIFE_MS) expect(cut).toBeLessThanOrEqual(f.floorAt)
      // Not lower than it must be: it is one of its bounds.
      const bounds = [now - retention, ...floors.filter((f) => now - f.measuredAt <= FLOOR_LIFE_MS).map((f) => f.floorAt)]
      expect(bounds).toContain(cut)
    }))
  })
  it("a floor is never later than now, the oldest outbox row, or the oldest pending message less the clock margin", () => {
    fc.assert(fc.property(fc.integer({ min: 1e12, max: 2e12 }), fc.option(fc.integer({ min: 0, max: 2e12 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 2e12 }), { nil: undefined }), (now, pending, outbox) => {
      const f = measuredFloor(now, pending, outbox)
      expect(f).toBeLessThanOrEqual(now)
      if (pending !== undefined) expect(f).toBeLessThanOrEqual(pending - CLOCK_SKEW_MS)
      if (outbox !== undefined) expect(f).toBeLessThanOrEqual(outbox)
    }))
  })
})

/**
 * The sweep on the real database and JetStream, in a database of its own: it serves every deployment sharing the
 * database, and would take other files' rows (or keep them from being taken) otherwise.
 */
describe("the inbox retention sweep", () => {
  let database: Awaited<ReturnType<typeof ownDatabase>>
  let sql: postgres.Sql
  let nc: NatsConnection
  let jsm: JetStreamManager
  const ns = `inboxret_${randomUUID().slice(0, 8)}`
  beforeAll(async () => {
    database = await ownDatabase("inboxret")
    sql = postgres(database.url, { max: 2, onnotice: () => {} })
    nc = await connect({ servers: inject("natsUrl") })
    jsm = await jetstreamManager(nc)
  }, 60_000)
  afterAll(async () => {
    await jsm?.streams.delete(ingressStream(ns)).catch(() => undefined)
    await nc?.close()
    await sql?.end()
    await database?.drop()
  })

  const tenant = randomUUID()
  /** An inbox row applied `secondsAgo` before now. */
  const applied = async (secondsAgo: number) => {
    const id = randomUUID()
    await sql`INSERT INTO inbox (envelope_id, tenant_id, actor, actor_key, reply, processed_at)
      VALUES (${id}, ${tenant}, 'reservation', 'k', '\\x00', now() - make_interval(secs => ${secondsAgo}))`
    return id
  }
  /** Which of `ids` are still in the inbox, in the order given. */
  const kept = async (ids: ReadonlyArray<string>) => {
    const left = new Set((await sql`SELECT envelope_id FROM inbox WHERE envelope_id = ANY(${ids as Array<string>})`).map((r) => r.envelope_id as string))
    return ids.filter((id) => left.has(id))
  }
  const sweep = (retentionMs: number) => sweepInboxOnce({ sql, jsm, namespace: ns, retentionMs })

  it("removes nothing before it has measured its deployment's floor (the stream never answered)", async () => {
    const old = await applied(3_600)
    expect(await sweep(0)).toMatchObject({ inbox: 0, floor_measured: false })
    expect(await kept([old])).toEqual([old])
  })

  it("removes rows older than the window once nothing older is pending, and keeps the younger ones", async () => {
    await jsm.streams.add({ name: ingressStream(ns), subjects: [`${ns}.in.>`], retention: RetentionPolicy.Workqueue })
    const [old, young] = [await applied(20 * 60), await applied(60)]
    const r = await sweep(15 * 60_000)
    expect(r.floor_measured).toBe(true)
    expect(await kept([old, young])).toEqual([young])
    const [floor] = await sql`SELECT floor_at FROM inbox_floors WHERE namespace = ${ns}`
    expect(floor).toBeDefined()
  })

  it("keeps rows a message still in the ingress stream may be the envelope of, until the stream lets it go", async () => {
    const recent = await applied(5)
    await jetstream(nc).publish(`${ns}.in.reservation.0`, new Uint8Array([1]))
    await sweep(0)
    // The pending message was published after this row was applied, but the stream's clock is given a minute's margin.
    expect(await kept([recent])).toEqual([recent])
    await jsm.streams.purge(ingressStream(ns))
    await sweep(0)
    expect(await kept([recent])).toEqual([])
  })

  it("keeps rows an unpublished outbox row's messages may reach again, and removes rows an earlier release marked published", async () => {
    const [unpublished, marked] = [randomUUID(), randomUUID()]
    await sql`INSERT INTO outbox (id, tenant_id, subject, payload, created_at)
      VALUES (${unpublished}, ${tenant}, ${`${ns}.cmd.x`}, '\\x00', now() - interval '10 minutes')`
    await sql`INSERT INTO outbox (id, tenant_id, subject, payload, created_at, published_at)
      VALUES (${marked}, ${tenant}, ${`${ns}.cmd.x`}, '\\x00', now() - interval '10 minutes', now())`
    const [before, after] = [await applied(11 * 60), await applied(5 * 60)]
    const r = await sweep(0)
    expect(r.outbox).toBe(1)
    expect(await kept([before, after])).toEqual([after])
    expect((await sql`SELECT id FROM outbox WHERE id IN (${unpublished}, ${marked})`).map((x) => x.id)).toEqual([unpublished])
    await sql`DELETE FROM outbox WHERE id = ${unpublished}`
    await sweep(0)
    expect(await kept([after])).toEqual([])
  })

  it("cuts at another deployment's floor while that deployment measures, and ignores one silent past the stream's age limit", async () => {
    const other = `${ns}_other`
    await sql`INSERT INTO inbox_floors (namespace, floor_at, measured_at) VALUES (${other}, now() - interval '1 hour', now())`
    const row = await applied(30 * 60)
    await sweep(0)
    expect(await kept([row])).toEqual([row])
    await sql`UPDATE inbox_floors SET measured_at = now() - interval '8 days' WHERE namespace = ${other}`
    await sweep(0)
    expect(await kept([row])).toEqual([])
  })
})
