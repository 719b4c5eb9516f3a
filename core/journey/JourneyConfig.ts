import { Config, Context, Effect, Layer } from "effect"

/** The journey clocks of a worker. */
export interface JourneyConfigShape {
  /** GEP_JOURNEY_TIMER_MS: how often a worker wakes due waits (the bound on a wake-up's lateness when idle). */
  readonly timerMs: number
}

export class JourneyConfig extends Context.Service<JourneyConfig, JourneyConfigShape>()("app/journey/JourneyConfig") {
  static readonly config = Config.all({
    // GEP_JOURNEY_DATE_SCAN_MS is read by the reservation date scan (actors/shared/ReservationDateScan.ts).
    timerMs: Config.Int("GEP_JOURNEY_TIMER_MS").pipe(Config.withDefault(500))
  })

  static readonly layer = Layer.effect(JourneyConfig, Effect.gen(function*() {
    return JourneyConfig.of(yield* JourneyConfig.config)
  }).pipe(Effect.orDie))
}
