import { Clock, Effect } from "effect"
import * as Actor from "../runtime/Actor.ts"

/**
 * A loyalty command's time: when its envelope was sent (the ingress clock), not when a worker gets to it. Expiry of holds
 * and lots, hold TTLs and earning dates are decided on it, so a backlog (or a worker's death and a redelivery) cannot
 * fail a hold confirm that was sent in time, and a redelivered command decides exactly as the first delivery did
 * (design note §3 "Time", §5 "Hold expiry racing confirm"). Commands of one member arrive in the order they were sent,
 * so no command processed before a confirm can have expired its hold on a later clock.
 */
export const commandTime = Effect.gen(function*() {
  const { sentAt } = yield* Effect.service(Actor.ActorTransaction)
  // Without a usable sent_at, the worker's clock (Effect's Clock, so a TestClock can drive it).
  return new Date(Number.isFinite(sentAt) && sentAt > 0 ? sentAt : yield* Clock.currentTimeMillis).toISOString()
})
