import type { JourneyDefinition } from "../../schemas/journey.ts"
import type { JourneySignal } from "./protocol.ts"
import type { StepFacts } from "./facts.ts"
import type { Run } from "./run.ts"
import { type Advanced, advance, finish } from "./state.ts"
import { type BookingFacts, type CandidateJourney, entryRefusal, scopeOf, stopReason, triggerMatches } from "./triggers.ts"

export interface SignalInput {
  readonly signal: JourneySignal
  /** The contact's live runs, each with the definition version it is pinned to. */
  readonly live: ReadonlyArray<{ readonly run: Run; readonly definition: JourneyDefinition }>
  /**
   * Active journeys the signal's event (or date trigger) names, at their current versions, each with when the
   * contact last entered it in the signal's scope.
   */
  readonly candidates: ReadonlyArray<CandidateJourney & { readonly last_started_at?: number | undefined }>
  readonly booking: BookingFacts | null
  readonly now: number
  /** The facts a new run's first steps read (every run a signal starts shares its hotel and reservation). */
  readonly facts: StepFacts
  readonly newId: () => string
}

export interface SignalDecision {
  /** Every run the signal changed: stopped ones first, then started ones as their first steps left them. */
  readonly results: ReadonlyArray<Advanced>
  readonly started: ReadonlyArray<string>
  readonly stopped: ReadonlyArray<string>
}

/**
 * What a signal does to a contact's journeys: it stops the live runs whose stop rules it meets, then starts each
 * active journey whose trigger it matches, unless a run of that journey and scope is live or re-entry forbids it;
 * a started run runs its first steps at once. Pure: the actor loads the inputs and writes the results.
 */
export const onSignal = (i: SignalInput): SignalDecision => {
  const s = i.signal
  const results: Array<Advanced> = []
  const stillLive: Array<Run> = []
  const stopped: Array<string> = []
  for (const { run, definition } of i.live) {
    const reason = stopReason(run, definition.trigger, s, i.booking)
    if (reason === null) stillLive.push(run)
    else {
      results.push(finish(run, "stopped", i.now, reason))
      stopped.push(run.id)
    }
  }
  const scope = scopeOf(s)
  const started: Array<string> = []
  for (const j of i.candidates.filter((c) => triggerMatches(c, s))) {
    const isLiveHere = stillLive.some((r) => r.journey_id === j.id && r.scope === scope)
    if (entryRefusal(j.definition.trigger, isLiveHere, j.last_started_at, i.now) !== null) continue
    const run: Run = {
      id: i.newId(), journey_id: j.id, version: j.version, contact_id: s.contact_id, scope,
      hotel_id: s.hotel_id, reservation_id: s.reservation_id, state: "active", step_index: 0, wake_at: null, wake_seq: 0,
      steps_taken: 0, started_at: i.now, ended_at: null, exit_reason: null, error: null,
      trigger: { event_id: s.event_id, event_name: s.event_name, occurred_at: s.occurred_at, payload: s.payload, origin: s.origin, source: s.source }
    }
    const moved = advance(run, j.definition, i.facts)
    results.push({ run: moved.run, moves: [{ kind: "announce", type: "journey.started", run }, ...moved.moves] })
    started.push(run.id)
  }
  return { results, started, stopped }
}
