import { Config, Context, Duration, Effect, Layer, Schedule } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"

export interface LoopPressureShape {
  /** Whether this process's event loop is behind: the mean lateness of its turns in the last window over the threshold. */
  readonly saturated: () => boolean
}

const WINDOW = Duration.millis(100)
const thresholdMs = Config.Int("GEP_SHED_LOOP_DELAY_MS").pipe(Config.withDefault(50))

/**
 * How far behind this process's event loop runs, sampled every 100 ms from Node's event-loop delay histogram (a 10 ms
 * timer's lateness). An ingress whose loop is behind has requests waiting in its sockets that no limit inside the
 * application sees (the admission limit counts calls to workers): when it is saturated, the HTTP server sheds writes
 * before they reach the application (src/http/sheddingServer.ts). The mean, not the maximum: one garbage collection
 * pause makes one late turn, a saturated loop makes every turn late. 0 switches it off.
 */
export class LoopPressure extends Context.Service<LoopPressure, LoopPressureShape>()("app/http/LoopPressure") {
  static readonly layer = Layer.effect(LoopPressure, Effect.gen(function*() {
    const threshold = yield* thresholdMs
    const histogram = monitorEventLoopDelay({ resolution: 10 })
    histogram.enable()
    yield* Effect.addFinalizer(() => Effect.sync(() => histogram.disable()))
    let saturated = false
    yield* Effect.sync(() => {
      saturated = threshold > 0 && histogram.count > 0 && histogram.mean / 1e6 > threshold
      histogram.reset()
    }).pipe(Effect.repeat(Schedule.spaced(WINDOW)), Effect.forkScoped)
    return LoopPressure.of({ saturated: () => saturated })
  }))
}
