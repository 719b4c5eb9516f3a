import { Schema } from "effect"
import { parseDuration } from "./isoDuration.ts"
import { oneOf, SafeNumber, SafeString, Uuid } from "./common.ts"

// The public contract of a journey definition: its trigger and its steps. Structure is checked here; what needs the
// whole definition (step references, cycles, merge tags, registered templates) is checked by the definition check
// (core/journey/validate.ts) before anything is saved.

const opt = Schema.optionalKey

const text = (max: number) =>
  SafeString.check(Schema.makeFilter((s: string) => (s.trim().length > 0 && [...s].length <= max) || `must be 1 to ${max} characters`))

/**
 * An event name a journey listens to: a core type (`booking.created`, custom `category.action`) or a website event
 * name (lowercase dotted, 1 to 4 segments, each a letter then letters, digits or underscores, at most 32 characters a
 * segment and 64 in all).
 */
export const JourneyEventName = SafeString.check(Schema.makeFilter((s: string) =>
  (s.length <= 64 && /^[a-z][a-z0-9_]{0,31}(\.[a-z][a-z0-9_]{0,31}){0,3}$/.test(s)) ||
  "must be a lowercase dotted event name (1 to 4 segments of a letter then letters, digits or underscores; at most 64 characters)"
))

export const WebsiteStages = ["dates", "room", "extras", "details", "payment"] as const

const isoDuration = (check: (ms: number, hasTime: boolean) => true | string) =>
  SafeString.check(Schema.makeFilter((s: string) => {
    const d = parseDuration(s)
    return d === undefined ? "must be an ISO 8601 duration in weeks, days, hours, minutes or seconds, e.g. PT1H, P2D, P1DT12H" : check(d.ms, d.hasTime)
  }))

/** A wait's length: 1 second to 365 days. */
export const WaitDuration = isoDuration((ms) => (ms >= 1_000 && ms <= 365 * 86_400_000) || "must be from 1 second (PT1S) to 365 days (P365D)")
  .annotate({ description: "ISO 8601 duration in weeks, days, hours, minutes or seconds, 1 second to 365 days (no months or years: their length varies)", examples: ["PT1H", "P2D"] })

/** How long after a run's start the same contact may enter again (same scope): 1 minute to 365 days. */
const Cooldown = isoDuration((ms) => (ms >= 60_000 && ms <= 365 * 86_400_000) || "must be from 1 minute (PT1M) to 365 days (P365D)")

/** A date trigger's offset from its anchor date, in whole days (weeks allowed), either side: -365 to 365 days. */
const DayOffset = isoDuration((ms, hasTime) =>
  (!hasTime && Math.abs(ms) <= 365 * 86_400_000) || "must be whole days or weeks, signed, at most 365 days either side, e.g. -P2D, P1D, P0D")

export const Reentry = Schema.Union([oneOf(["never", "always"] as const), Schema.Struct({ after: Cooldown })]).annotate({
  description: "`never` (default): once per contact and scope; `always`: again whenever no run of the scope is live; " +
    "`{after}`: again once that long has passed since the last entry"
})
export type Reentry = typeof Reentry.Type

export const EventTrigger = Schema.Struct({
  type: Schema.Literal("event"),
  event: JourneyEventName,
  sources: opt(Schema.Array(text(100)).check(Schema.isMaxLength(20))
    .annotate({ description: "event sources that start the journey; empty or absent: any" })),
  stages: opt(Schema.Array(oneOf(WebsiteStages)).check(Schema.isMaxLength(5))
    .annotate({ description: "cart.abandoned only: the stages that start it; empty or absent: any" })),
  stop_when: opt(Schema.Array(JourneyEventName).check(Schema.isMaxLength(20))
    .annotate({ description: "events that end the run for the same cart (else session); default [checkout.completed]" })),
  stop_on_booking: opt(Schema.Boolean.annotate({
    description: "end the run when a real reservation for the contact arrives; default true, false for booking and stay events"
  })),
  reentry: opt(Reentry)
})

export const DateTrigger = Schema.Struct({
  type: Schema.Literal("reservation_date"),
  anchor: oneOf(["check_in", "check_out"] as const),
  offset: DayOffset.annotate({ description: "days from the anchor date, e.g. -P2D two days before check-in" }),
  local_time: SafeString.check(Schema.makeFilter((s: string) =>
    /^([01]\d|2[0-3]):[0-5]\d$/.test(s) || "must be a local time HH:MM (00:00 to 23:59)"))
    .annotate({ description: "in the hotel's timezone" }),
  late: opt(oneOf(["send", "skip"] as const).annotate({
    description: "a reservation made after its moment has passed (same stay not begun): `send` at once, or `skip` (default)"
  })),
  stop_on_booking: opt(Schema.Boolean),
  reentry: opt(Reentry)
})

export const JourneyTrigger = Schema.Union([EventTrigger, DateTrigger])
export type JourneyTrigger = typeof JourneyTrigger.Type

const StepId = SafeString.check(Schema.makeFilter((s: string) =>
  (/^[A-Za-z0-9_-]{1,64}$/.test(s) && s !== "end") || "must be 1 to 64 letters, digits, _ or - (and not `end`)"))

export const SendStepCategories = ["marketing", "utility"] as const

export const WaitStep = Schema.Struct({ id: StepId, type: Schema.Literal("wait"), duration: WaitDuration })
export const EmailStep = Schema.Struct({
  id: StepId,
  type: Schema.Literal("email"),
  category: oneOf(SendStepCategories),
  subject: text(998),
  html: opt(text(500_000)),
  text: opt(text(100_000))
})
export const WhatsAppStep = Schema.Struct({
  id: StepId,
  type: Schema.Literal("whatsapp"),
  category: oneOf(SendStepCategories),
  template: text(512),
  language: text(15),
  params: opt(Schema.Array(text(200)).check(Schema.isMaxLength(20)).annotate({
    description: "variable paths in body-parameter order: event.payload.<path>, event.name, contact.<field>, hotel.<field>"
  }))
})

/** What a branch tests: one condition. */
export const BranchCondition = Schema.Union([
  Schema.Struct({ consent: oneOf(["email_marketing", "whatsapp_marketing"] as const) }),
  Schema.Struct({ has: oneOf(["email", "phone"] as const) }),
  Schema.Struct({ stage: Schema.Array(oneOf(["pre_stay", "during_stay", "post_stay"] as const)).check(Schema.isMinLength(1)) }),
  Schema.Struct({
    property: text(200).annotate({ description: "a variable path, e.g. event.payload.context.stage" }),
    equals: opt(Schema.Union([text(500), SafeNumber, Schema.Boolean])),
    exists: opt(Schema.Boolean)
  })
])
export type BranchCondition = typeof BranchCondition.Type

const Target = SafeString.check(Schema.makeFilter((s: string) => /^[A-Za-z0-9_-]{1,64}$/.test(s) || "must be a step id or `end`"))
export const BranchStep = Schema.Struct({ id: StepId, type: Schema.Literal("branch"), if: BranchCondition, then: Target, else: Target })
export const EndStep = Schema.Struct({ id: StepId, type: Schema.Literal("end") })

export const JourneyStep = Schema.Union([WaitStep, EmailStep, WhatsAppStep, BranchStep, EndStep])
export type JourneyStep = typeof JourneyStep.Type

export const MAX_STEPS = 50

/** What a journey is: saved as one immutable version; runs interpret the version they started on. */
export const JourneyDefinition = Schema.Struct({
  name: text(200),
  hotel_ids: opt(Schema.Array(Uuid).check(Schema.isMaxLength(100))
    .annotate({ description: "hotels whose events start it; empty or absent: every hotel" })),
  trigger: JourneyTrigger,
  steps: Schema.Array(JourneyStep).check(Schema.isMinLength(1), Schema.isMaxLength(MAX_STEPS))
})
export type JourneyDefinition = typeof JourneyDefinition.Type

export const JourneyStatuses = ["draft", "active", "paused", "archived"] as const
export type JourneyStatus = typeof JourneyStatuses[number]

export const RunStates = ["active", "waiting", "completed", "stopped", "failed"] as const
export type RunState = typeof RunStates[number]
