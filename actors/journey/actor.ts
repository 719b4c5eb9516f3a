import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { deterministicId } from "../../core/deterministicId.ts"
import type { JourneyStatus } from "../../schemas/journey.ts"
import { MessageProtocol } from "../message/protocol.ts"
import * as Actor from "../runtime/Actor.ts"
import { journeyEvent } from "./events.ts"
import { JourneyProtocol, type JourneySignal, RunNotFound, type StopRun, type WakeRun } from "./protocol.ts"
import * as Repo from "./repository.ts"
import { type Advanced, type ContactFacts, finish, isLive, type Move, type Run, type StepFacts, wake } from "./state.ts"
import { onSignal } from "./decide.ts"
import { type BookingFacts, triggerMatches } from "./triggers.ts"

/** A step's message id: one per run and step, so a redelivered send lands on the message the first one recorded. */
const messageId = (runId: string, stepId: string) => deterministicId(`journey:${runId}:${stepId}`)

/**
 * The facts a run's steps read, loaded in the handler's transaction; the contact's and the channels' once per
 * handler, a hotel's and a reservation's once per id.
 */
const factsLoader = (contact: ContactFacts, now: number) => {
  let channels: ReturnType<typeof Repo.channelFacts> | undefined
  return Effect.fn("JourneyActor.facts")(function*(run: Pick<Run, "hotel_id" | "reservation_id" | "contact_id">, journeyStatus: JourneyStatus) {
    const [hotel, reservation, channelFacts] = yield* Actor.query((tx, scope) => Promise.all([
      Repo.hotelFacts(tx, scope, run.hotel_id),
      Repo.reservationFacts(tx, scope, run.reservation_id, run.contact_id),
      (channels ??= Repo.channelFacts(tx, scope))
    ]))
    return { now, journeyStatus, contact, hotel, reservation, channels: channelFacts, messageId } satisfies StepFacts
  })
}

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

/** Writes what runs became and did: run rows (ended or waiting ones first, so a scope freed can be taken), steps, sends, webhooks. */
const persist = Effect.fn("JourneyActor.persist")(function*(
  results: ReadonlyArray<Advanced>, names: ReadonlyMap<string, string>, contact: ContactFacts | undefined
) {
  const { subject, scope } = yield* Effect.service(Actor.GroupTransaction)
  const runs = results.map((r) => r.run).sort((a, b) => Number(isLive(a)) - Number(isLive(b)))
  const moves = results.flatMap((r) => r.moves)
  yield* Actor.query((tx) => Promise.all([Repo.saveRuns(tx, scope, runs, new Date()), Repo.saveSteps(tx, scope, moves)]))
  const sends = yield* Effect.forEach(moves.filter((m) => m.kind === "send"), sendOf)
  const announced = moves.flatMap((m) =>
    m.kind === "announce" ? [journeyEvent(subject, scope, m.type, m.run, { name: names.get(m.run.journey_id) ?? "" }, contact)] : [])
  yield* Actor.emit([...sends, ...announced])
})

const bookingOf = Effect.fn("JourneyActor.bookingOf")(function*(s: JourneySignal) {
  if (s.origin !== "booking" || s.reservation_id === null) return null
  const r = yield* Actor.query((tx, scope) => Repo.reservationFacts(tx, scope, s.reservation_id, s.contact_id))
  return r === null ? null : ({ reservation_id: r.id, status: r.status, hotel_id: r.hotel_id, created_at: r.created_at } satisfies BookingFacts)
})

/** A signal stops the contact's live runs it ends, then starts the active journeys it triggers (re-entry permitting). */
const signal = Effect.fn("JourneyActor.signal")(function*(s: JourneySignal) {
  const now = Date.now()
  const [live, contact, candidates] = yield* Actor.query((tx, scope) => Promise.all([
    Repo.liveRuns(tx, scope, s.contact_id),
    Repo.contactFacts(tx, scope, s.contact_id),
    Repo.candidateJourneys(tx, scope, s.event_name, s.journey_id)
  ]))
  if (contact === undefined) return { started: [], stopped: [] }
  const matching = candidates.filter((j) => triggerMatches(j, s))
  const [pinned, booking, lastEntries] = yield* Effect.all([
    Actor.query((tx, scope) => Repo.pinnedVersions(tx, scope, live)),
    bookingOf(s),
    Actor.query((tx, scope) => Repo.lastEntries(tx, scope, s.contact_id, matching.map((j) => j.id)))
  ])
  // Every run a signal starts has the signal's hotel and reservation: one set of facts serves them all.
  const facts = matching.length === 0
    ? undefined
    : yield* factsLoader(contact, now)({ hotel_id: s.hotel_id, reservation_id: s.reservation_id, contact_id: s.contact_id }, "active")
  const decision = onSignal({
    signal: s, live, pinned, candidates: matching, lastEntries, booking, now, facts: facts!, newId: randomUUID
  })
  if (decision.results.length > 0) {
    const names = new Map<string, string>([
      ...[...pinned.entries()].map(([k, v]) => [k.split("/")[0]!, v.name] as const),
      ...candidates.map((c) => [c.id, c.name] as const)
    ])
    yield* persist(decision.results, names, contact)
  }
  return { started: [...decision.started], stopped: [...decision.stopped] }
})

/** A wait is over: the run moves on, unless the wake is stale (the run moved on, ended, or waits again). */
const wakeRun = Effect.fn("JourneyActor.wake")(function*(w: WakeRun) {
  const run = yield* Actor.query((tx, scope) => Repo.runById(tx, scope, w.run_id))
  if (run === undefined || run.state !== "waiting" || run.wake_seq !== w.wake_seq) return { started: [], stopped: [] }
  const [pinned, contact] = yield* Actor.query((tx, scope) => Promise.all([Repo.pinnedVersions(tx, scope, [run]), Repo.contactFacts(tx, scope, run.contact_id)]))
  const journey = pinned.get(`${run.journey_id}/${run.version}`)!
  const now = Date.now()
  const result = contact === undefined
    ? finish(run, "stopped", now, "contact_deleted")
    : wake(run, journey.definition, yield* factsLoader(contact, now)(run, journey.status))
  yield* persist([result], new Map([[run.journey_id, journey.name]]), contact)
  return { started: [], stopped: result.run.state === "stopped" ? [run.id] : [] }
})

/** A manual stop: at once, also during a wait (the wake that follows finds the run ended and changes nothing). */
const stop = Effect.fn("JourneyActor.stop")(function*(cmd: StopRun) {
  const run = yield* Actor.query((tx, scope) => Repo.runById(tx, scope, cmd.run_id))
  if (run === undefined || run.contact_id !== cmd.contact_id) return yield* new RunNotFound({ run_id: cmd.run_id })
  if (!isLive(run)) return { run_id: run.id, state: run.state, exit_reason: run.exit_reason, was_live: false }
  const [pinned, contact] = yield* Actor.query((tx, scope) => Promise.all([Repo.pinnedVersions(tx, scope, [run]), Repo.contactFacts(tx, scope, run.contact_id)]))
  const result = finish(run, "stopped", Date.now(), "manual")
  yield* persist([result], new Map([[run.journey_id, pinned.get(`${run.journey_id}/${run.version}`)?.name ?? ""]]), contact)
  return { run_id: run.id, state: result.run.state, exit_reason: result.run.exit_reason, was_live: true }
})

/**
 * The journey actor: a contact's runs, moved by signals (events of every family), wakes (the timer sweep) and stops.
 * Handlers are per envelope and read several things before they write, so groups are applied side by side.
 */
export const JourneyActor = Actor.make(JourneyProtocol, { signal, wake: wakeRun, stop }, { minLanes: 4 })
