import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstream } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { makeOutboxRelay } from "../../../actors/runtime/OutboxRelay.ts"
import { runDateScan } from "../../../actors/webhook/dateScan.ts"
import { phone, reservation } from "../../support/fixtures.ts"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../../support/httpsReceiver.ts"
import { createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../../support/platform.ts"
import { expectVerifies, subscribe } from "../../support/webhook.ts"

process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"

let platform: RunningPlatform
let receiver: Receiver
let nc: NatsConnection
const sql = testSql()
const DAY = "2027-03-15" // New York is on daylight time (UTC-4) since 14 March 2027; Madrid still on CET (UTC+1)

beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  platform = await startPlatform("whscan")
  nc = await connect({ servers: platform.config.natsUrl })
})
afterAll(async () => {
  await nc?.close()
  await platform?.stop()
  await receiver?.close()
  await sql.end()
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
})

const scan = (at: string) => {
  const relay = makeOutboxRelay(sql, jetstream(nc), platform.config.namespace)
  return runDateScan({ sql, namespace: platform.config.namespace, publish: (m) => Effect.runPromise(relay.publishMessages(m)) }, new Date(at), { waitForLock: true })
}
/** The scan of another deployment sharing the database; what it writes (for nobody's reservations here) is removed. */
const scanElsewhere = async (at: string) => {
  const result = await runDateScan({ sql, namespace: `elsewhere_${platform.config.namespace}`, publish: async () => {} }, new Date(at), { waitForLock: true })
  const ids = result.events.map((e) => e.id)
  await sql`DELETE FROM reservation_date_events WHERE outbox_id = ANY(${ids}::uuid[])`
  await sql`DELETE FROM outbox WHERE id = ANY(${ids}::uuid[])`
  return result
}

let guest = 70_000
const book = async (tenant: TestTenant, hotel_code: string, overrides: Record<string, unknown>) => {
  const res = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code }, {
    confirmation_number: "LOC-1", booking_id: "BK-1", channel: "booking.com", amount: 420.5, currency: "USD",
    guests: [
      { first_name: "Kid", pax_type: "child" },
      { first_name: "Holder", last_name: "Smith", phone: phone(guest++), email: `holder${guest}@gmail.com`, language: "es", nationality: "ES", is_holder: true }
    ],
    ...overrides
  }))
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data as { reservation_id: string; contacts: Array<{ contact_id: string | null }> }
}

const bodies = (path: string) => receiver.on(path).map((r) => JSON.parse(r.raw.toString("utf8")))

describe("reservation date events", () => {
  it("fire once per reservation and date at the hotel's local times, however often the scan runs", async () => {
    const tenant = await createTenant("scan")
    const [hotel] = await sql`
      INSERT INTO hotels (tenant_id, code, name, timezone) VALUES (${tenant.tenant_id}, ${`NY-${tenant.tenant_id.slice(0, 8)}`},
        ${`New York ${tenant.tenant_id}`}, 'America/New_York') RETURNING id, code`
    const sub = await subscribe(platform.baseUrl, tenant.live_key, {
      url: receiver.url("/scan"), event_types: ["reservation.checked_in", "reservation.checked_out"]
    })
    const arriving = await book(tenant, hotel!.code, { check_in: DAY, check_out: "2027-03-18" })
    await book(tenant, hotel!.code, { check_in: DAY, check_out: "2027-03-18", status: "cancelled" })
    const leaving = await book(tenant, hotel!.code, { check_in: "2027-03-12", check_out: DAY, status: "checked_in" })
    await book(tenant, tenant.hotel_code, { check_in: DAY, check_out: "2027-03-18" }) // Madrid: 15:00 there is 14:00Z

    // 14:59 in New York: the check-out time (12:00) has passed, the check-in time (15:00) not yet.
    const before = await scan(`${DAY}T18:59:00Z`)
    expect(before.events.map((e) => (e.payload as { event_type: string }).event_type).filter((t) => t.endsWith("checked_out"))).toHaveLength(1)
    const atThree = await scan(`${DAY}T19:00:00Z`)
    expect(atThree.events).toHaveLength(1)
    const again = await scan(`${DAY}T19:00:00Z`)
    const later = await scan(`${DAY}T23:30:00Z`)
    expect([again.ran, again.events.length, later.events.length]).toEqual([true, 0, 0])

    await receiver.waitFor("/scan", 3)
    await new Promise((r) => setTimeout(r, 1_000))
    const received = bodies("/scan")
    for (const r of receiver.on("/scan")) expectVerifies(r, sub.secret)
    const checkIns = received.filter((b) => b.event_type === "reservation.checked_in")
    const checkOuts = received.filter((b) => b.event_type === "reservation.checked_out" && b.data.reservation.id === leaving.reservation_id)
    const nyCheckIns = checkIns.filter((b) => b.data.scheduled_for.timezone === "America/New_York")
    expect(nyCheckIns).toHaveLength(1)
    expect(checkOuts).toHaveLength(1)
    const madrid = checkIns.filter((b) => b.data.scheduled_for.timezone === "Europe/Madrid")
    expect(madrid).toHaveLength(1)
    expect(madrid[0].data.scheduled_for).toEqual({ date: DAY, local_time: "15:00", timezone: "Europe/Madrid", iso: `${DAY}T15:00:00+01:00` })

    const event = nyCheckIns[0]
    expect(event.data.reservation).toEqual({
      id: arriving.reservation_id, hotel_id: hotel!.id, status: "Confirmed", check_in: DAY, check_out: "2027-03-18",
      localizer_code: "LOC-1", booking_id: "BK-1", source: "pms", booking_channel: "booking.com", total_value: 420.5, currency: "USD"
    })
    expect(event.data.contact).toMatchObject({ id: arriving.contacts[1]!.contact_id, first_name: "Holder", last_name: "Smith", language: "es", nationality: "ES" })
    expect(event.data.scheduled_for).toEqual({ date: DAY, local_time: "15:00", timezone: "America/New_York", iso: `${DAY}T15:00:00-04:00` })
    expect(checkOuts[0].data.scheduled_for).toEqual({ date: DAY, local_time: "12:00", timezone: "America/New_York", iso: `${DAY}T12:00:00-04:00` })
    expect(checkOuts[0].data.reservation.status).toBe("CheckedIn")
    const [keys] = await sql`SELECT count(*)::int AS n FROM reservation_date_events WHERE tenant_id = ${tenant.tenant_id}`
    expect(keys!.n).toBe(3)
  }, 30_000)

  it("uses the tenant's configured event times", async () => {
    const tenant = await createTenant("scan-cfg")
    const set = await request(platform.baseUrl, "PATCH", "/api/v1/webhook-settings", { key: tenant.live_key, body: { check_in_time: "16:30" } })
    expect(set.body).toEqual({ success: true, data: { check_in_time: "16:30", check_out_time: "12:00" } })
    await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/cfg"), event_types: ["reservation.checked_in"] })
    const r = await book(tenant, tenant.hotel_code, { check_in: "2027-03-16", check_out: "2027-03-17" })
    const early = await scan("2027-03-16T15:29:00Z") // 16:29 in Madrid
    expect(early.events.filter((e) => JSON.stringify(e.payload).includes(r.reservation_id))).toHaveLength(0)
    const due = await scan("2027-03-16T15:30:00Z")
    expect(due.events.filter((e) => JSON.stringify(e.payload).includes(r.reservation_id))).toHaveLength(1)
    const [delivered] = await receiver.waitFor("/cfg", 1)
    expect(JSON.parse(delivered!.raw.toString("utf8")).data.scheduled_for).toEqual({
      date: "2027-03-16", local_time: "16:30", timezone: "Europe/Madrid", iso: "2027-03-16T16:30:00+01:00"
    })
  })

  it("leaves reservations this deployment wrote to its own scan, not another's sharing the database", async () => {
    const tenant = await createTenant("scan-ns")
    await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/ns"), event_types: ["reservation.checked_in"] })
    const r = await book(tenant, tenant.hotel_code, { check_in: "2027-03-19", check_out: "2027-03-20" })
    const mine = (events: ReadonlyArray<{ payload: unknown }>) => events.filter((e) => JSON.stringify(e.payload).includes(r.reservation_id))
    expect(mine((await scanElsewhere("2027-03-19T15:30:00Z")).events)).toHaveLength(0)
    expect(mine((await scan("2027-03-19T15:30:00Z")).events)).toHaveLength(1)
    await receiver.waitFor("/ns", 1)
  })
})
