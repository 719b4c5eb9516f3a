import type { ConsumerMessages, JsMsg } from "@nats-io/jetstream"
import { Clock, Context, Effect, Layer } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { JourneyConfig } from "../../core/journey/JourneyConfig.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { journeySignalConsumer } from "../../streams/journeyTopology.ts"
import { Nats } from "../../streams/Nats.ts"
import { natsFailure } from "../../streams/natsErrors.ts"
import { outboxStream } from "../../streams/subjects.ts"
import { messagePublisher } from "../runtime/OutboxRelay.ts"
import { periodic } from "../runtime/periodic.ts"
import { routeSignals } from "./signalRouter.ts"
import { wakeDueRuns } from "./timerSweep.ts"

/** Domain events routed together: one lookup of the listening tenants for all of them. */
const BATCH_MAX = 256

export interface JourneySchedulerShape {
  /** Wakes the waits due at `now` (the timer sweep calls it with the clock; tests may call it directly). */
  readonly wakeDue: (now: Date) => Promise<number>
}

/**
 * The worker side of journeys outside the actor: the router that turns every family's domain events into signals, and
 * the timer sweep that wakes due waits (a fiber of this layer, every GEP_JOURNEY_TIMER_MS on the Clock). Every worker
 * runs both; the consumer shares events between workers and the sweep skips what another worker holds, so adding
 * workers adds capacity. `reservation_date` journeys start from the reservation date scan
 * (actors/shared/ReservationDateScan.ts).
 */
export class JourneyScheduler extends Context.Service<JourneyScheduler, JourneySchedulerShape>()("app/journey/JourneyScheduler") {
  static readonly layer = Layer.effect(JourneyScheduler, Effect.gen(function*() {
    const app = yield* AppConfig
    const config = yield* JourneyConfig
    const { sql } = yield* Database
    const { js } = yield* Nats
    const publish = yield* messagePublisher
    const clock = yield* Clock.Clock
    const deps = { sql, js, namespace: app.namespace, partitions: app.partitions, now: () => clock.currentTimeMillisUnsafe(), publish }
    const wakeDue = (now: Date) => wakeDueRuns(deps, now)
    let messages: ConsumerMessages | undefined
    let loop: Promise<void> | undefined

    const route = async (source: ConsumerMessages) => {
      let waiting: Array<JsMsg> = []
      let scheduled: Promise<void> | undefined
      const drain = async () => {
        while (waiting.length > 0) {
          const batch = waiting.splice(0, BATCH_MAX)
          // A batch that fails unexpectedly is seen again after its ack wait; the loop goes on with the next one.
          await routeSignals(deps, batch).catch((e) => log("error", "journey signal batch failed", { events: batch.length, error: errorText(e) }))
        }
        scheduled = undefined
      }
      for await (const m of source) {
        waiting.push(m)
        // Whatever arrives in this turn of the event loop joins the batch.
        scheduled ??= new Promise<void>((r) => setImmediate(r)).then(drain)
      }
      await scheduled
      waiting = []
    }

    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const consumer = await js.consumers.get(outboxStream(app.namespace), journeySignalConsumer(app.namespace))
          messages = await consumer.consume({ max_messages: BATCH_MAX })
          loop = route(messages)
        },
        catch: natsFailure
      }).pipe(Effect.andThen(Effect.logInfo("journey scheduler started"))),
      () => Effect.promise(async () => {
        await messages?.close().catch(() => undefined)
        await loop
      }).pipe(Effect.andThen(Effect.logInfo("journey scheduler stopped")))
    )
    yield* Effect.forkScoped(periodic({ name: "journey timer sweep", span: "JourneyScheduler.wakeDue", every: config.timerMs, run: wakeDue }))
    return JourneyScheduler.of({ wakeDue })
  }))
}
