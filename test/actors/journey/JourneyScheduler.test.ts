import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { JourneyScheduler } from "../../../actors/journey/JourneyScheduler.ts"
import { JourneyConfig } from "../../../core/journey/JourneyConfig.ts"
import { createJourney, runIn, runsOf } from "../../support/journeys.ts"
import { newContact } from "../../support/messaging.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../../support/platform.ts"
import { advanceBy, advanceUntil, workerInfrastructure } from "../../support/testClock.ts"

// The journey timer sweep on the test clock: a run waiting a day is woken once the clock has passed the day, by the
// sweep fiber of a JourneyScheduler built here. The platform beside it (same namespace, real clock) runs the journey
// actor the wake goes to; its own sweep, a day short on the real clock, never wakes the run.

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()
const TIMER_MS = 500

beforeAll(async () => {
  platform = await startPlatform("jtimer")
  tenant = await createTenant("jtimer")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const Scheduler = () => JourneyScheduler.layer.pipe(
  Layer.provide(Layer.succeed(JourneyConfig, JourneyConfig.of({ timerMs: TIMER_MS }))),
  Layer.provide(workerInfrastructure(platform.config))
)

describe("the journey timer sweep", () => {
  it.effect("wakes a run waiting a day once the clock has passed the day, not before", () =>
    Effect.gen(function*() {
      const journeyId = yield* Effect.promise(() => createJourney(sql, tenant, {
        name: `Day wait ${Date.now()}`, trigger: { type: "event", event: "cart.abandoned" },
        steps: [{ id: "pause", type: "wait", duration: "P1D" }, { id: "done", type: "end" }]
      }))
      const contact = yield* Effect.promise(() => newContact(platform.baseUrl, tenant))
      yield* Effect.promise(() => post(platform.baseUrl, "/api/v1/events", tenant.live_key, {
        event_type: "cart.abandoned", contact_id: contact.id, payload: { context: { cart_id: `cart-${journeyId}` } }
      }))
      const waiting = yield* Effect.promise(() => runIn(sql, journeyId, contact.id, ["waiting"]))
      const wakeAt = waiting.wake_at!.getTime()
      expect(wakeAt - waiting.started_at.getTime()).toBeGreaterThanOrEqual(86_400_000 - 1_000)

      yield* TestClock.setTime(waiting.started_at.getTime())
      yield* Effect.gen(function*() {
        yield* JourneyScheduler
        // An hour before the wake: sweeps run (each a timer step apart) and leave the run waiting.
        yield* TestClock.setTime(wakeAt - 3_600_000)
        yield* advanceBy(TIMER_MS, 5)
        expect((yield* Effect.promise(() => runsOf(sql, journeyId, contact.id))).map((r) => r.state)).toEqual(["waiting"])
        // Past the wake: the next sweep wakes it and the actor carries it to its end.
        yield* TestClock.setTime(wakeAt + 1_000)
        const done = yield* advanceUntil("the run woken", TIMER_MS, async () =>
          (await runsOf(sql, journeyId, contact.id)).find((r) => r.state === "completed"))
        expect(done.id).toBe(waiting.id)
        const [row] = yield* Effect.promise(() => sql`SELECT wake_seq, wake_published FROM journey_runs WHERE id = ${waiting.id}`)
        expect(row!.wake_published).toBe(row!.wake_seq)
      }).pipe(Effect.provide(Scheduler()))
    }), 120_000)
})
