import { type Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { AppConfig, type AppConfigShape } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { makeOutboxRelay, OutboxRelay } from "../../actors/runtime/OutboxRelay.ts"
import { Nats } from "../../streams/Nats.ts"

/**
 * A worker's connections and outbox relay for one of its layers built inside a test, beside a running platform of the same namespace:
 * what the layer publishes reaches that platform's actors, and its fibers run on the test's clock (the platform's
 * own sweeps keep the real one). Nats.make, not Nats.layer: its JetStream probe would wait on the test clock.
 */
export const workerInfrastructure = (config: AppConfigShape) =>
  unscheduledRelay.pipe(Layer.provideMerge(Layer.mergeAll(Database.layer, Layer.effect(Nats, Nats.make(config.natsUrl, "gep-test-clock"))).pipe(
    Layer.provideMerge(Layer.succeed(AppConfig, AppConfig.of({ ...config, dbPoolSize: 2 })))
  )))

/**
 * The relay's operations without its schedules: on the test clock, its 100 ms flush would run once per 100 ms of every
 * jump the test makes (a day's jump: 864,000 runs). What it publishes is removed from the outbox by the platform's own
 * relay (same namespace), whose sweep publishes it again, deduplicated by the stream.
 */
const unscheduledRelay = Layer.effect(OutboxRelay, Effect.gen(function*() {
  const { sql } = yield* Database
  const { js } = yield* Nats
  const { namespace } = yield* AppConfig
  return makeOutboxRelay(sql, js, namespace)
}))

const pause = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** Moves the test clock on by `step`, `moves` times, giving the fibers it wakes real time to run in between. */
export const advanceBy = (step: Duration.Input, moves: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < moves; i++) {
      yield* TestClock.adjust(step)
      yield* pause(100)
    }
  })

/**
 * Moves the test clock on by `step` until `check` answers. A fiber woken by the clock runs its statements in real
 * time, and sleeps again only after them: a move made meanwhile passes its next run by, so the clock is moved again
 * until what the run does is seen.
 */
export const advanceUntil = <A>(what: string, step: Duration.Input, check: () => Promise<A | undefined>, attempts = 100) =>
  Effect.gen(function*() {
    for (let i = 0; i < attempts; i++) {
      yield* TestClock.adjust(step)
      yield* pause(100)
      const value = yield* Effect.promise(check)
      if (value !== undefined) return value
    }
    return yield* Effect.die(new Error(`${what}: not seen after ${attempts} moves of the clock`))
  })
