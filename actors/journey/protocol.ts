import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)

/** Where a signal came from: it decides the marketing rules (website) and what counts as a booking. */
export const SignalOrigins = ["core", "website", "booking", "date"] as const

/**
 * Something happened to a contact: an event of any family (a core event, a booking, a website event) or a
 * reservation's date coming due. It may stop the contact's live runs and start new ones.
 */
export const JourneySignal = Schema.Struct({
  contact_id: Schema.String,
  event_id: Schema.String,
  event_name: Schema.String,
  occurred_at: Schema.String,
  payload: Schema.Record(Schema.String, Schema.Unknown),
  origin: Schema.Literals(SignalOrigins),
  source: Schema.NullOr(Schema.String),
  hotel_id: Schema.NullOr(Schema.String),
  reservation_id: Schema.NullOr(Schema.String),
  /** False for a booking's companions: their runs can be stopped by it, but journeys start for the holder only. */
  starts: Schema.Boolean,
  /** A date trigger starts this journey only. */
  journey_id: opt(Schema.String),
  /** A date trigger firing after its moment had passed (the reservation came late). */
  late: opt(Schema.Boolean)
})
export type JourneySignal = typeof JourneySignal.Type

/** A wait is over (published by the timer sweep); stale when the run moved on or was stopped. */
export const WakeRun = Schema.Struct({ contact_id: Schema.String, run_id: Schema.String, wake_seq: Schema.Number })
export type WakeRun = typeof WakeRun.Type

export const StopRun = Schema.Struct({ contact_id: Schema.String, run_id: Schema.String })
export type StopRun = typeof StopRun.Type

export const SignalOutcome = Schema.Struct({
  started: Schema.Array(Schema.String),
  stopped: Schema.Array(Schema.String)
})

export const RunStopped = Schema.Struct({
  run_id: Schema.String,
  state: Schema.String,
  exit_reason: Schema.NullOr(Schema.String),
  /** False: the run had already ended; it is answered as it is. */
  was_live: Schema.Boolean
})

export class RunNotFound extends Schema.TaggedError<RunNotFound>()("RunNotFound", { run_id: Schema.String }) {}

/**
 * The journey actor, one per contact: every signal, wake and stop of a contact's runs applies in order, so a stop
 * and a send never race and a contact never has two live runs of one journey and scope.
 */
export const JourneyProtocol = ActorProtocol.make("journey", {
  key: (p) => p.contact_id,
  messages: {
    signal: ActorProtocol.message({ payload: JourneySignal, success: SignalOutcome }),
    wake: ActorProtocol.message({ payload: WakeRun, success: SignalOutcome }),
    stop: ActorProtocol.message({ payload: StopRun, success: RunStopped, error: RunNotFound })
  }
})
