import { parseDuration } from "../../core/journey/duration.ts"
import type { JourneyDefinition, JourneyStep } from "../../schemas/journey.ts"
import type { StepFacts } from "./facts.ts"
import type { Run, RunError, StepOutcome } from "./run.ts"
import { conditionHolds, emailStep, type MergeValues, type Send, whatsappStep } from "./steps.ts"


// The pure journey interpreter: a run moves through its pinned definition version until it waits, ends or fails;
// every decision reads the facts it is given, so replaying it with the same facts gives the same moves.


export type Move =
  | {
    readonly kind: "step"
    readonly run_id: string
    readonly seq: number
    readonly step_id: string
    readonly step_type: string
    readonly outcome: StepOutcome
    readonly reason: string | null
    readonly message_id: string | null
    readonly at: number
    /** A message step's merge values (sent or skipped for a missing one); absent for the other steps. */
    readonly merge_values?: MergeValues
  }
  | { readonly kind: "send"; readonly run: Run; readonly step_id: string; readonly message_id: string; readonly send: Send }
  | { readonly kind: "announce"; readonly type: "journey.started" | "journey.completed" | "journey.failed"; readonly run: Run }

export interface Advanced {
  readonly run: Run
  readonly moves: ReadonlyArray<Move>
}

const end = (run: Run, state: "completed" | "stopped" | "failed", now: number, reason: string | null, error: RunError | null = null): Run =>
  ({ ...run, state, ended_at: now, exit_reason: reason, error, wake_at: null })

/** Ends a live run and announces it: `journey.completed` (completed or stopped, the spec has no journey.stopped) or `journey.failed`. */
export const finish = (run: Run, state: "completed" | "stopped" | "failed", now: number, reason: string | null, error: RunError | null = null): Advanced => {
  const ended = end(run, state, now, reason, error)
  return { run: ended, moves: [{ kind: "announce", type: state === "failed" ? "journey.failed" : "journey.completed", run: ended }] }
}

const CANCELLED = ["cancelled", "no_show"]

/**
 * Why a run must stop before it sends or moves on, whatever the signal: its journey paused or archived, or the
 * reservation it is about cancelled since it started (unless cancellation is what started it).
 */
export const standingStop = (run: Run, facts: StepFacts): string | null => {
  if (facts.journeyStatus === "paused" || facts.journeyStatus === "draft") return "journey_paused"
  if (facts.journeyStatus === "archived") return "journey_archived"
  const r = facts.reservation
  if (run.reservation_id !== null && r !== null && r.id === run.reservation_id && CANCELLED.includes(r.status) &&
    run.trigger.event_name !== "booking.cancelled") return "reservation_cancelled"
  return null
}

const targetIndex = (steps: ReadonlyArray<JourneyStep>, target: string): number =>
  target === "end" ? steps.length : steps.findIndex((s) => s.id === target)

/**
 * Runs a live run from its current step until it waits or ends: sends are checked against the standing stop rules
 * first, waits store their wake time with the next wake sequence, a step that cannot be done ends the run failed.
 */
export const advance = (start: Run, definition: JourneyDefinition, facts: StepFacts): Advanced => {
  const steps = definition.steps
  const moves: Array<Move> = []
  let run: Run = { ...start, state: "active", wake_at: null }
  const record = (step: JourneyStep, outcome: StepOutcome, reason: string | null, messageId: string | null = null, mergeValues?: MergeValues) => {
    moves.push({
      kind: "step", run_id: run.id, seq: run.steps_taken + 1, step_id: step.id, step_type: step.type, outcome, reason,
      message_id: messageId, at: facts.now, ...(mergeValues === undefined ? {} : { merge_values: mergeValues })
    })
    run = { ...run, steps_taken: run.steps_taken + 1 }
  }
  const done = (a: Advanced): Advanced => ({ run: a.run, moves: [...moves, ...a.moves] })
  // Definitions are acyclic (checked when saved), so each step runs at most once: the bound is a guard only.
  for (let guard = 0; guard <= steps.length; guard++) {
    const index = run.step_index
    const step = steps[index]
    if (step === undefined || index < 0) return done(finish(run, "completed", facts.now, "completed"))
    if (step.type === "end") {
      record(step, "ended", null)
      return done(finish(run, "completed", facts.now, "completed"))
    }
    if (step.type === "wait") {
      const wakeAt = facts.now + parseDuration(step.duration)!.ms
      record(step, "waited", new Date(wakeAt).toISOString())
      return { run: { ...run, state: "waiting", wake_at: wakeAt, wake_seq: run.wake_seq + 1 }, moves }
    }
    if (step.type === "branch") {
      const holds = conditionHolds(step.if, run, facts)
      const target = holds ? step.then : step.else
      record(step, "branched", target)
      run = { ...run, step_index: targetIndex(steps, target) }
      continue
    }
    const stop = standingStop(run, facts)
    if (stop !== null) return done(finish(run, "stopped", facts.now, stop))
    const result = step.type === "email" ? emailStep(step, run, facts, index) : whatsappStep(step, run, facts, index)
    if ("fail" in result) {
      record(step, "failed", result.fail.code)
      return done(finish(run, "failed", facts.now, "failed", result.fail))
    }
    if (result.send !== undefined) {
      const messageId = facts.messageId(run.id, step.id)
      record(step, "sent", null, messageId, result.merge_values)
      moves.push({ kind: "send", run, step_id: step.id, message_id: messageId, send: result.send })
    } else record(step, result.outcome, result.reason, null, result.merge_values)
    run = { ...run, step_index: result.next }
  }
  return done(finish(run, "failed", facts.now, "failed", { code: "definition_cycle", message: "The definition loops", step_id: null }))
}

/** A wait is over: the run moves past it, unless a standing stop rule ends it first. */
export const wake = (run: Run, definition: JourneyDefinition, facts: StepFacts): Advanced => {
  const stop = standingStop(run, facts)
  if (stop !== null) return finish(run, "stopped", facts.now, stop)
  return advance({ ...run, step_index: run.step_index + 1 }, definition, facts)
}
