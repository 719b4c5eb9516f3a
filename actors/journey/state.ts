import { parseDuration } from "../../core/journey/duration.ts"
import { type MergeContext, render, resolvePath, resumeUrlOf, RESUME_URL_TAG, tagsIn } from "../../core/journey/mergeTags.ts"
import type { BranchCondition, JourneyDefinition, JourneyStatus, JourneyStep, RunState } from "../../schemas/journey.ts"
import type { SignalOrigins } from "./protocol.ts"
import { stageOf } from "./stage.ts"

// The pure journey interpreter: a run moves through its pinned definition version until it waits, ends or fails;
// every decision reads the facts it is given, so replaying it with the same facts gives the same moves.

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

export interface ContactFacts {
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly language: string | null
  readonly email_consent: boolean | null
  readonly whatsapp_marketing_consent: boolean | null
}

export interface HotelFacts {
  readonly id: string
  readonly name: string
  readonly code: string | null
  readonly timezone: string
}

export interface ReservationFacts {
  readonly id: string
  readonly status: string
  readonly check_in: string
  readonly check_out: string
  readonly hotel_id: string
  readonly created_at: number
}

export interface RegisteredTemplate {
  readonly name: string
  readonly language: string
  readonly category: string
  readonly body_parameters: number
}

export interface ChannelFacts {
  readonly email: boolean
  readonly whatsapp: boolean
  readonly templates: ReadonlyArray<RegisteredTemplate>
}

/** What a step needs to know when it runs: read fresh in the transaction that runs it. */
export interface StepFacts {
  readonly now: number
  readonly journeyStatus: JourneyStatus
  readonly contact: ContactFacts
  readonly hotel: HotelFacts | null
  /** The run's reservation, else the contact's current or next one (for the guest stage). */
  readonly reservation: ReservationFacts | null
  readonly channels: ChannelFacts
  readonly messageId: (runId: string, stepId: string) => string
}

export type Send =
  | {
    readonly channel: "email"
    readonly category: "marketing" | "utility"
    readonly subject: string
    readonly html: string | undefined
    readonly text: string | undefined
  }
  | {
    readonly channel: "whatsapp"
    readonly template: { readonly name: string; readonly language: string; readonly parameters: ReadonlyArray<string> }
    readonly gate_as: "marketing" | undefined
  }

export type StepOutcome = "sent" | "skipped" | "failed" | "waited" | "branched" | "ended"

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

const mergeContext = (run: Run, facts: StepFacts): MergeContext => ({
  event: { name: run.trigger.event_name, id: run.trigger.event_id, occurred_at: run.trigger.occurred_at, payload: run.trigger.payload },
  contact: {
    first_name: facts.contact.first_name, last_name: facts.contact.last_name, email: facts.contact.email,
    phone: facts.contact.phone, language: facts.contact.language
  },
  hotel: facts.hotel === null ? null : { name: facts.hotel.name, code: facts.hotel.code }
})

const hasConsent = (c: ContactFacts, kind: "email_marketing" | "whatsapp_marketing") =>
  (kind === "email_marketing" ? c.email_consent : c.whatsapp_marketing_consent) === true

export const conditionHolds = (cond: BranchCondition, run: Run, facts: StepFacts): boolean => {
  if ("consent" in cond) return hasConsent(facts.contact, cond.consent)
  if ("has" in cond) return (cond.has === "email" ? facts.contact.email : facts.contact.phone) !== null
  if ("stage" in cond) {
    const stage = facts.reservation === null ? null : stageOf(facts.reservation, facts.hotel?.timezone ?? "UTC", facts.now)
    return stage !== null && (cond.stage as ReadonlyArray<string>).includes(stage)
  }
  const value = resolvePath(cond.property, mergeContext(run, facts))
  if (cond.equals !== undefined) return value !== undefined && value === String(cond.equals)
  return (value !== undefined) === (cond.exists ?? true)
}

type StepResult =
  | { readonly next: number; readonly outcome: StepOutcome; readonly reason: string | null; readonly send?: Send }
  | { readonly fail: RunError }

const emailStep = (step: Extract<JourneyStep, { type: "email" }>, run: Run, facts: StepFacts, index: number): StepResult => {
  if (!facts.channels.email) return { fail: { code: "channel_not_configured", message: "The email channel is not configured", step_id: step.id } }
  const parts = [step.subject, step.html ?? "", step.text ?? ""]
  const ctx = mergeContext(run, facts)
  if (parts.some((p) => tagsIn(p).includes(RESUME_URL_TAG)) && resumeUrlOf(ctx) === undefined) {
    return { next: index + 1, outcome: "skipped", reason: "missing_resume_url" }
  }
  // Website-event journeys send email as marketing (spec, website events rule 5); elsewhere the step decides.
  const category = run.trigger.origin === "website" ? "marketing" : step.category
  const send: Send = {
    channel: "email", category, subject: render(step.subject, ctx, { html: false }),
    html: step.html === undefined ? undefined : render(step.html, ctx, { html: true }),
    text: step.text === undefined ? undefined : render(step.text, ctx, { html: false })
  }
  return { next: index + 1, outcome: "sent", reason: null, send }
}

const whatsappStep = (step: Extract<JourneyStep, { type: "whatsapp" }>, run: Run, facts: StepFacts, index: number): StepResult => {
  const failure = (code: string, message: string): StepResult => ({ fail: { code, message, step_id: step.id } })
  if (!facts.channels.whatsapp) return failure("channel_not_configured", "The WhatsApp channel is not configured")
  const registered = facts.channels.templates.find((t) => t.name === step.template && t.language === step.language)
  if (registered === undefined) return failure("template_not_registered", `Template ${step.template} (${step.language}) is not registered`)
  const paths = step.params ?? []
  if (paths.length !== registered.body_parameters) {
    return failure("template_parameter_count", `Template ${step.template} takes ${registered.body_parameters} parameters; the step gives ${paths.length}`)
  }
  const ctx = mergeContext(run, facts)
  const parameters = paths.map((p) => resolvePath(p, ctx))
  if (parameters.some((p) => p === undefined)) return { next: index + 1, outcome: "skipped", reason: "missing_template_parameter" }
  // Every template a website-event journey sends needs marketing consent (rule 5); a marketing step asks for it too.
  const gate_as = run.trigger.origin === "website" || step.category === "marketing" ? "marketing" : undefined
  const send: Send = { channel: "whatsapp", template: { name: step.template, language: step.language, parameters: parameters as Array<string> }, gate_as }
  return { next: index + 1, outcome: "sent", reason: null, send }
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
  const record = (step: JourneyStep, outcome: StepOutcome, reason: string | null, messageId: string | null = null) => {
    moves.push({ kind: "step", run_id: run.id, seq: run.steps_taken + 1, step_id: step.id, step_type: step.type, outcome, reason, message_id: messageId, at: facts.now })
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
      record(step, "sent", null, messageId)
      moves.push({ kind: "send", run, step_id: step.id, message_id: messageId, send: result.send })
    } else record(step, result.outcome, result.reason)
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
