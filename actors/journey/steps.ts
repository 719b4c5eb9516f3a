import { type MergeContext, render, resolvePath, resumeUrlOf, RESUME_URL_TAG, tagsIn, tagValues } from "../../core/journey/mergeTags.ts"
import type { BranchCondition, JourneyStep } from "../../schemas/journey.ts"
import type { ContactFacts, StepFacts } from "./facts.ts"
import { stageOf } from "./stage.ts"
import type { Run, RunError, StepOutcome } from "./run.ts"

// What each kind of step does for a run, given the facts: render and hand over a send, skip with a reason, or fail.

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

/** The merge tags (email) or parameter paths (WhatsApp) of a message step and the value each had: null for none. */
export type MergeValues = Readonly<Record<string, string | null>>

export type StepResult =
  | {
    readonly next: number
    readonly outcome: StepOutcome
    readonly reason: string | null
    readonly send?: Send
    readonly merge_values?: MergeValues
  }
  | { readonly fail: RunError }

export const emailStep = (step: Extract<JourneyStep, { type: "email" }>, run: Run, facts: StepFacts, index: number): StepResult => {
  if (!facts.channels.email) return { fail: { code: "channel_not_configured", message: "The email channel is not configured", step_id: step.id } }
  const parts = [step.subject, step.html ?? "", step.text ?? ""]
  const ctx = mergeContext(run, facts)
  const merge_values = tagValues(parts, ctx)
  if (parts.some((p) => tagsIn(p).includes(RESUME_URL_TAG)) && resumeUrlOf(ctx) === undefined) {
    return { next: index + 1, outcome: "skipped", reason: "missing_resume_url", merge_values }
  }
  // Website-event journeys send email as marketing (spec, website events rule 5); elsewhere the step decides.
  const category = run.trigger.origin === "website" ? "marketing" : step.category
  const send: Send = {
    channel: "email", category, subject: render(step.subject, ctx, { html: false }),
    html: step.html === undefined ? undefined : render(step.html, ctx, { html: true }),
    text: step.text === undefined ? undefined : render(step.text, ctx, { html: false })
  }
  return { next: index + 1, outcome: "sent", reason: null, send, merge_values }
}

export const whatsappStep = (step: Extract<JourneyStep, { type: "whatsapp" }>, run: Run, facts: StepFacts, index: number): StepResult => {
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
  const merge_values = Object.fromEntries(paths.map((p, i) => [p, parameters[i] ?? null]))
  if (parameters.some((p) => p === undefined)) {
    return { next: index + 1, outcome: "skipped", reason: "missing_template_parameter", merge_values }
  }
  // Every template a website-event journey sends needs marketing consent (rule 5); a marketing step asks for it too.
  const gate_as = run.trigger.origin === "website" || step.category === "marketing" ? "marketing" : undefined
  const send: Send = { channel: "whatsapp", template: { name: step.template, language: step.language, parameters: parameters as Array<string> }, gate_as }
  return { next: index + 1, outcome: "sent", reason: null, send, merge_values }
}

