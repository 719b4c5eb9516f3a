import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { journeyDateSignals } from "../../../actors/journey/dateTrigger.ts"
import { type DateScanPart, ReservationDateScan, type WorkerDateScanDeps } from "../../../actors/shared/ReservationDateScan.ts"
import { webhookDateEvents } from "../../../actors/webhook/dateScan.ts"
import { reservation } from "../../support/fixtures.ts"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../../support/httpsReceiver.ts"
import { createJourney, runsOf } from "../../support/journeys.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../../support/platform.ts"
import { advanceUntil, workerInfrastructure } from "../../support/testClock.ts"
import { eventually, subscribe } from "../../support/webhook.ts"

// The one reservation date scan on the test clock: its fiber, built here with the platform's two parts, fires a
// reservation's check-in webhook event and its `reservation_date` journey once the clock has passed the hotel's
// check-in time, and the next scheduled run fires neither again. The platform beside it (same namespace, real clock)
// delivers the event and runs the journey; its own scan, years short on the real clock, never reaches this day.

process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"

let platform: RunningPlatform
let receiver: Receiver
let tenant: TestTenant
const sql = testSql()
// Madrid is on summer time (UTC+2) then: 15:00 there, the check-in event's default time, is 13:00Z.
const DAY = "2031-05-20"
const CHECK_IN_TIME = Date.parse(`${DAY}T13:00:00Z`)
const SCAN_MS = 60_000

beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  platform = await startPlatform("rdscan")
  tenant = await createTenant("rdscan")
  await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/dates"), event_types: ["reservation.checked_in"] })
})
afterAll(async () => {
  // Every worker's scan reads the active date journeys of all accounts: this one's end with the file.
  if (tenant) await sql`UPDATE journey_definitions SET status = 'archived' WHERE tenant_id = ${tenant.tenant_id}`
  await platform?.stop()
  await receiver?.close()
  await sql.end()
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
})

/** The scan's runs, by the instant each was given (the parts are the platform's, only watched). */
const runs: Array<number> = []
const watched: DateScanPart<WorkerDateScanDeps> = (tx, now, deps) => {
  runs.push(now.getTime())
  return webhookDateEvents(tx, now, deps)
}
const Scan = () => ReservationDateScan.layer({ webhooks: watched, journeys: journeyDateSignals }).pipe(
  Layer.provide(workerInfrastructure(platform.config))
)

const book = async (email: string) => {
  const res = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
    check_in: DAY, check_out: "2031-05-23", guests: [{ first_name: "Ana", last_name: "Ruiz", email, is_holder: true }]
  }))
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data as { reservation_id: string; contacts: Array<{ contact_id: string }> }
}
const keysOf = (reservationId: string) => sql`SELECT event_type FROM reservation_date_events WHERE reservation_id = ${reservationId}`
const firesOf = (journeyId: string, reservationId: string) =>
  sql`SELECT fire_at FROM journey_date_fires WHERE journey_id = ${journeyId} AND reservation_id = ${reservationId}`
const deliveredFor = (reservationId: string) =>
  receiver.on("/dates").map((r) => JSON.parse(r.raw.toString("utf8"))).filter((b) => b.data.reservation.id === reservationId)

describe("the reservation date scan", () => {
  it.effect("fires a check-in's webhook event and date journey once, after the hotel's check-in time, and not again", () =>
    Effect.gen(function*() {
      const journeyId = yield* Effect.promise(() => createJourney(sql, tenant, {
        name: `Arrival ${Date.now()}`, trigger: { type: "reservation_date", anchor: "check_in", offset: "P0D", local_time: "15:00" },
        steps: [{ id: "done", type: "end" }]
      }))
      const arriving = yield* Effect.promise(() => book(`arriving-${Date.now()}@gmail.com`))
      const contactId = arriving.contacts[0]!.contact_id

      // The layer starts two intervals before 15:00 in Madrid: its first run, an interval later, finds nothing due.
      yield* TestClock.setTime(CHECK_IN_TIME - 2 * SCAN_MS)
      yield* Effect.gen(function*() {
        yield* ReservationDateScan
        yield* advanceUntil("a run past the check-in time", SCAN_MS, async () => (runs.some((t) => t >= CHECK_IN_TIME) ? true : undefined))
        expect(runs[0]).toBeLessThan(CHECK_IN_TIME)
        const fire = yield* Effect.promise(() => eventually("the journey's fire", async () => (await firesOf(journeyId, arriving.reservation_id))[0]))
        expect(fire.fire_at.getTime()).toBe(CHECK_IN_TIME)
        expect((yield* Effect.promise(() => keysOf(arriving.reservation_id))).map((k) => k.event_type)).toEqual(["reservation.checked_in"])
        const event = yield* Effect.promise(() => eventually("the event delivered", async () => deliveredFor(arriving.reservation_id)[0]))
        // Sent by a run past the check-in time, on the test clock.
        expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(CHECK_IN_TIME)
        expect(event.data.scheduled_for).toMatchObject({ date: DAY, local_time: "15:00", timezone: "Europe/Madrid" })
        yield* Effect.promise(() => eventually("the journey run", async () => (await runsOf(sql, journeyId, contactId))[0]))

        // A reservation booked now is fired by the next scheduled run (a later run, then), which fires nothing twice.
        const late = yield* Effect.promise(() => book(`late-${Date.now()}@gmail.com`))
        yield* advanceUntil("the next run's event", SCAN_MS, async () => (await keysOf(late.reservation_id))[0])
        yield* Effect.promise(() => eventually("its delivery", async () => deliveredFor(late.reservation_id)[0]))
      }).pipe(Effect.provide(Scan()))
      expect(yield* Effect.promise(() => keysOf(arriving.reservation_id))).toHaveLength(1)
      expect(yield* Effect.promise(() => firesOf(journeyId, arriving.reservation_id))).toHaveLength(1)
      expect(yield* Effect.promise(() => runsOf(sql, journeyId, contactId))).toHaveLength(1)
      expect(deliveredFor(arriving.reservation_id)).toHaveLength(1)
    }), 120_000)
})
