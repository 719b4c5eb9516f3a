import { Clock, Effect, Option } from "effect"

/**
 * Waits for `effect` until `deadline` (epoch ms, on `Clock`): true when it finished in time, false when the wait was
 * given up (the wait is interrupted; a fiber it awaited goes on). An infinite deadline waits for as long as it takes.
 */
export const untilDeadline = <A, E>(effect: Effect.Effect<A, E>, deadline: number): Effect.Effect<boolean, E> =>
  Number.isFinite(deadline)
    ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
      effect.pipe(Effect.timeoutOption(Math.max(0, deadline - now)), Effect.map(Option.isSome)))
    : Effect.as(effect, true)
