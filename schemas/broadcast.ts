import { Schema } from "effect"
import { DateTimeWithOffset, LanguageCode, LocalTime, NonEmptyString, oneOf, SafeString, Uuid } from "./common.ts"
import { MessageChannels } from "./message.ts"
import { SegmentDefinition } from "./segment.ts"

// Broadcasts (issue 25): a one-off send to an audience, its content, schedule and pacing, and the words of its
// lifecycle. The route shapes are in broadcastApi.ts.

const opt = Schema.optionalKey

export const BroadcastStatuses = ["draft", "scheduled", "sending", "paused", "sent", "cancelled", "failed"] as const
export type BroadcastStatus = typeof BroadcastStatuses[number]

export const RecipientStatuses = ["pending", "queued", "sent", "delivered", "read", "failed", "skipped"] as const
export type RecipientStatus = typeof RecipientStatuses[number]

export const RecipientSkipReasons = [
  "no_consent", "suppressed", "no_email", "no_phone", "no_longer_matches", "frequency_cap", "deadline_passed", "cancelled",
  "missing_template_parameter"
] as const

/** At most one marketing message per contact and channel in this many hours, unless the account sets its own. */
export const DEFAULT_MARKETING_CAP_HOURS = 16

export const BroadcastCategories = ["marketing", "utility"] as const
export type BroadcastCategory = typeof BroadcastCategories[number]

const text = (max: number) =>
  SafeString.check(Schema.makeFilter((s: string) => (s.trim().length > 0 && [...s].length <= max) || `must be 1 to ${max} characters`))

/** One language's email: a subject and an html or text body (or both), with the journeys' merge tags. */
export const EmailBody = Schema.Struct({
  subject: text(998),
  html: opt(text(512 * 1024)),
  text: opt(text(256 * 1024))
}).check(Schema.makeFilter((b) => b.html !== undefined || b.text !== undefined || { path: ["html"], issue: "an html or a text body is required" }))

export const EmailContent = Schema.Struct({
  ...EmailBody.fields,
  /** Per-language versions, chosen by the contact's language (`es-ES` falls back to `es`), else the fields above. */
  variants: opt(Schema.Record(LanguageCode, EmailBody).check(
    Schema.makeFilter((r) => Object.keys(r).length <= 50 || "at most 50 language variants")
  ))
}).check(Schema.makeFilter((b) => b.html !== undefined || b.text !== undefined || { path: ["html"], issue: "an html or a text body is required" }))
export type EmailContent = typeof EmailContent.Type

export const WhatsAppContent = Schema.Struct({
  template: text(512),
  language: text(15).annotate({ description: "as registered, e.g. `es` or `en_US`" }),
  /** Body parameters {{1}}, {{2}}, ... as merge paths (`contact.first_name`, `hotel.name`), as in journeys. */
  params: opt(Schema.Array(text(200)).check(Schema.makeFilter((a) => a.length <= 20 || "at most 20 parameters")))
})
export type WhatsAppContent = typeof WhatsAppContent.Type

export const BroadcastContent = Schema.Union([EmailContent, WhatsAppContent])
export type BroadcastContent = typeof BroadcastContent.Type

export const Audience = Schema.Struct({
  segment_id: opt(Uuid),
  definition: opt(SegmentDefinition),
  exclude_segment_ids: opt(Schema.Array(Uuid).check(Schema.makeFilter((a) => a.length <= 20 || "at most 20 segments")))
}).check(Schema.makeFilter((a) =>
  (a.segment_id === undefined) !== (a.definition === undefined) || { path: ["segment_id"], issue: "give exactly one of segment_id and definition" }
))
export type Audience = typeof Audience.Type

export const BroadcastSchedule = Schema.Struct({
  send_at: DateTimeWithOffset,
  /** Send at send_at's wall-clock time in each recipient's zone (their stay's hotel, else the broadcast's hotel). */
  recipient_local_time: opt(Schema.Boolean)
})
export type BroadcastSchedule = typeof BroadcastSchedule.Type

export const QuietHours = Schema.Struct({ from: LocalTime, to: LocalTime })
export type QuietHours = typeof QuietHours.Type

export const BroadcastFields = {
  name: NonEmptyString.check(Schema.isMaxLength(200)),
  channel: oneOf(MessageChannels),
  category: oneOf(BroadcastCategories),
  audience: Audience,
  content: BroadcastContent,
  hotel_id: opt(Uuid),
  schedule: opt(BroadcastSchedule),
  rate_limit_per_minute: opt(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000 }, { message: "must be an integer from 1 to 1000000" }))),
  quiet_hours: opt(QuietHours),
  send_deadline: opt(DateTimeWithOffset)
}

export const BroadcastCounts = Schema.Struct({
  targeted: Schema.Number,
  pending: Schema.Number,
  queued: Schema.Number,
  sent: Schema.Number,
  delivered: Schema.Number,
  read: Schema.Number,
  failed: Schema.Number,
  skipped: Schema.Number,
  skipped_by_reason: Schema.Record(Schema.String, Schema.Number)
})
export type BroadcastCounts = typeof BroadcastCounts.Type

