import { Clock, DateTime, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { deterministicId } from "../../core/deterministicId.ts"
import type { JourneyStatus } from "../../schemas/journey.ts"
import { MessageProtocol } from "../message/protocol.ts"
import * as Actor from "../runtime/Actor.ts"
import { journeyEvent } from "./events.ts"
import { JourneyProtocol, type JourneySignal, RunNotFound, type StopRun, type WakeRun } from "./protocol.ts"
import {
  candidateJourneysOf, channelFactsOnce, contactFactsOf, hotelFactsOf, liveRunsOf, reservationFactsOf, runsById, saveRunsAndMoves
} from "./waveStatements.ts"
import type { ChannelFacts, ContactFacts, StepFacts } from "./facts.ts"
import { isLive, type Run } from "./run.ts"
import { type Advanced, finish, type Move, wake } from "./state.ts"
import { onSignal } from "./decide.ts"
import { scopeOf } from "./triggers.ts"

/** A step's message id: one per run and step, so a redelivered send lands on the message the first one recorded. */
const messageId = (runId: string, stepId: string) => deterministicId(`journey:${runId}:${stepId}`)

/** What a send move asks the message actor: the one gated send path, fire-and-forget, once per message id. */
const sendOf = (m: Extract<Move, { kind: "send" }>) => {
  const common = {
    message_id: m.message_id, contact_id: m.run.contact_id, origin: "journey" as const, journey_run_id: m.run.id,
    step_id: m.step_id, ...(m.run.hotel_id === null ? {} : { hotel_id: m.run.hotel_id })
  }
  const s = m.send
  const payload = s.channel === "email"
    ? { ...common, channel: "email" as const, category: s.category, subject: s.subject, ...(s.html === undefined ? {} : { html: s.html }), ...(s.text === undefined ? {} : { text: s.text }) }
    : { ...common, channel: "whatsapp" as const, template: { ...s.template, parameters: [...s.template.parameters] }, ...(s.gate_as === undefined ? {} : { gate_as: s.gate_as }) }
  return Actor.tell(MessageProtocol, "send", payload, `journey-send:${m.message_id}`)
}

/** Writes what runs became and did: run rows and steps (with the wave's, in one statement each), sends, webhooks. */
const persist = Effect.fn("JourneyActor.persist")(function*(
  results: ReadonlyArray<Advanced>, names: ReadonlyMap<string, string>, contact: ContactFacts | undefined
) {
  const { subject, scope, target } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* DateTime.nowAsDate
  const moves = results.flatMap((r) => r.moves)
  yield* saveRunsAndMoves({ runs: results.map((r) => r.run), moves, now, namespace: target.namespace })
  const sends = yield* Effect.forEach(moves.filter((m) => m.kind === "send"), sendOf)
  const announced = moves.flatMap((m) =>
    m.kind === "announce" ? [journeyEvent(subject, scope, m.type, m.run, { name: names.get(m.run.journey_id) ?? "" }, contact)] : [])
  yield* Actor.emit([...sends, ...announced])
})

/** A signal stops the contact's live runs it ends, then starts the active journeys it triggers (re-entry permitting). */
const signal = Effect.fn("JourneyActor.signal")(function*(s: JourneySignal) {
  const now = yield* Clock.currentTimeMillis
  // Everything the decision reads, in one round trip, each read one statement for the whole wave (waveStatements.ts).
  // Every run a signal starts has the signal's hotel and reservation, so one set of step facts serves them all.
  const [live, contact, candidates, hotel, reservation, channels] = yield* Effect.all([
    liveRunsOf(s.contact_id),
    contactFactsOf(s.contact_id),
    candidateJourneysOf({ eventName: s.event_name, journeyId: s.journey_id, contactId: s.contact_id, runScope: scopeOf(s) }),
    hotelFactsOf(s.hotel_id),
    reservationFactsOf({ reservationId: s.reservation_id, contactId: s.contact_id }),
    channelFactsOnce()
  ], { concurrency: "unbounded" })
  if (contact === undefined) return { started: [], stopped: [] }
  // A booking's signal names its reservation: the stop rules read it as the booking that may end runs.
  const booking = s.origin === "booking" && s.reservation_id !== null ? reservation : null
  const decision = onSignal({
    signal: s,
    live: live.map((p) => ({ run: p.run, definition: p.journey.definition })),
    candidates,
    booking: booking === null ? null : { reservation_id: booking.id, status: booking.status, hotel_id: booking.hotel_id, created_at: booking.created_at },
    now,
    facts: { now, journeyStatus: "active", contact, hotel, reservation, channels, messageId },
    newId: randomUUID
  })
  if (decision.results.length > 0) {
    const names = new Map([...live.map((p) => [p.run.journey_id, p.journey.name] as const), ...candidates.map((c) => [c.id, c.name] as const)])
    yield* persist(decision.results, names, contact)
  }
  return { started: [...decision.started], stopped: [...decision.stopped] }
})

/** The facts a live run's next steps read, loaded fresh in the transaction that runs them. */
const stepFacts = Effect.fn("JourneyActor.stepFacts")(function*(run: Run, journeyStatus: JourneyStatus, contact: ContactFacts, channels: ChannelFacts, now: number) {
  const [hotel, reservation] = yield* Effect.all([
    hotelFactsOf(run.hotel_id),
    reservationFactsOf({ reservationId: run.reservation_id, contactId: run.contact_id })
  ], { concurrency: "unbounded" })
  return { now, journeyStatus, contact, hotel, reservation, channels, messageId } satisfies StepFacts
})

/** A wait is over: the run moves on, unless the wake is stale (the run moved on, ended, or waits again). */
const wakeRun = Effect.fn("JourneyActor.wake")(function*(w: WakeRun) {
  const [pinned, contact, channels] = yield* Effect.all([runsById(w.run_id), contactFactsOf(w.contact_id), channelFactsOnce()], { concurrency: "unbounded" })
  if (pinned === undefined || pinned.run.state !== "waiting" || pinned.run.wake_seq !== w.wake_seq) return { started: [], stopped: [] }
  const { run, journey } = pinned
  const now = yield* Clock.currentTimeMillis
  const result = contact === undefined
    ? finish(run, "stopped", now, "contact_deleted")
    : wake(run, journey.definition, yield* stepFacts(run, journey.status, contact, channels, now))
  yield* persist([result], new Map([[run.journey_id, journey.name]]), contact)
  return { started: [], stopped: result.run.state === "stopped" ? [run.id] : [] }
})

/** A manual stop: at once, also during a wait (the wake that follows finds the run ended and changes nothing). */
const stop = Effect.fn("JourneyActor.stop")(function*(cmd: StopRun) {
  const [pinned, contact] = yield* Effect.all([runsById(cmd.run_id), contactFactsOf(cmd.contact_id)], { concurrency: "unbounded" })
  if (pinned === undefined || pinned.run.contact_id !== cmd.contact_id) return yield* new RunNotFound({ run_id: cmd.run_id })
  const { run, journey } = pinned
  if (!isLive(run)) return { run_id: run.id, state: run.state, exit_reason: run.exit_reason, was_live: false }
  const result = finish(run, "stopped", yield* Clock.currentTimeMillis, "manual")
  yield* persist([result], new Map([[run.journey_id, journey.name]]), contact)
  return { run_id: run.id, state: result.run.state, exit_reason: result.run.exit_reason, was_live: true }
})

/**
 * The journey actor: a contact's runs, moved by signals (events of every family), wakes (the timer sweep) and stops.
 * Handlers are per envelope and read several things before they write, so groups are applied side by side; a wave's
 * handlers share each statement (waveStatements.ts).
 */
export const JourneyActor = Actor.make(JourneyProtocol, { signal, wake: wakeRun, stop }, { minLanes: 4 })
