import type { RunState } from "../../schemas/journey.ts"
import type { SignalOrigins } from "./protocol.ts"

// A contact's pass through one journey version, as the interpreter holds it.

export type Origin = typeof SignalOrigins[number]

/** The starting event, frozen in the run: merge tags, parameters and stop scopes read it for the whole run. */
export interface TriggerContext {
  readonly event_id: string
  readonly event_name: string
  readonly occurred_at: string
  readonly payload: Readonly<Record<string, unknown>>
  readonly origin: Origin
  readonly source: string | null
}

export interface RunError {
  readonly code: string
  readonly message: string
  readonly step_id: string | null
}

export interface Run {
  readonly id: string
  readonly journey_id: string
  readonly version: number
  readonly contact_id: string
  readonly scope: string
  readonly hotel_id: string | null
  readonly reservation_id: string | null
  readonly state: RunState
  /** The step to run next (or the wait in progress). */
  readonly step_index: number
  readonly wake_at: number | null
  readonly wake_seq: number
  readonly steps_taken: number
  readonly trigger: TriggerContext
  readonly started_at: number
  readonly ended_at: number | null
  readonly exit_reason: string | null
  readonly error: RunError | null
}

export const isLive = (r: Run): boolean => r.state === "active" || r.state === "waiting"

export type StepOutcome = "sent" | "skipped" | "failed" | "waited" | "branched" | "ended"
