import { ValidationFailed } from "../../schemas/errors.ts"
import type { ReplayRequest } from "../../schemas/webhook.ts"

const DAY_MS = 86_400_000
/** How far back a replay reaches, and how wide its window may be: the 14 days emitted bodies are kept. */
export const REPLAY_DAYS = 14
/** Replays per subscription per rolling hour; and one at a time (a replay still being published blocks the next). */
export const REPLAYS_PER_HOUR = 5
/** A replay not marked published after this long is taken as finished (a worker gone mid-replay resumes it anyway). */
export const REPLAY_RUNNING_MS = 10 * 60_000

export interface ReplayWindow {
  readonly since: Date
  readonly until: Date
  readonly event_types: ReadonlyArray<string> | null
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/u

const refused = (field: string, message: string) => ValidationFailed.of(`Invalid request: ${field} ${message}`, { [field]: [message] })

const instant = (field: string, value: string): Date | ValidationFailed => {
  const ms = ISO.test(value) ? Date.parse(value) : Number.NaN
  return Number.isNaN(ms) ? refused(field, "must be an ISO 8601 date-time with a time zone, e.g. 2026-11-20T00:00:00Z") : new Date(ms)
}

/** The window asked for at `now`, or 400 naming the field: since within the last 14 days, until after it, ≤ 14 days wide. */
export const replayWindow = (r: ReplayRequest, now: Date): ReplayWindow | ValidationFailed => {
  const since = instant("since", r.since)
  if (since instanceof ValidationFailed) return since
  const until = r.until === undefined ? now : instant("until", r.until)
  if (until instanceof ValidationFailed) return until
  if (since.getTime() < now.getTime() - REPLAY_DAYS * DAY_MS) return refused("since", `must be within the last ${REPLAY_DAYS} days`)
  if (since.getTime() >= now.getTime()) return refused("since", "must be in the past")
  if (until.getTime() <= since.getTime()) return refused("until", "must be after since")
  if (until.getTime() - since.getTime() > REPLAY_DAYS * DAY_MS) return refused("until", `must be at most ${REPLAY_DAYS} days after since`)
  return { since, until, event_types: r.event_types ?? null }
}
