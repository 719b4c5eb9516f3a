import { Schema } from "effect"
import { DateTimeWithOffset, maxLength, NonEmptyString, oneOf } from "./common.ts"

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))

export const CallEventTypes = ["call_ringing", "call_answered", "call_hangup", "call_missed", "record_available"] as const
export type CallEventType = typeof CallEventTypes[number]

/** A streamed call event, after keys were read as snake_case and `data` was merged in. */
export const CallEvent = Schema.Struct({
  event_type: oneOf(CallEventTypes),
  call_id: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")),
  user_id: nullable(Schema.Union([Schema.String, Schema.Finite])),
  from_number: nullable(Schema.String),
  to_number: nullable(Schema.String),
  direction: nullable(oneOf(["inbound", "outbound"])),
  duration: nullable(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  recording_url: nullable(maxLength(2048)),
  timestamp: nullable(DateTimeWithOffset)
})
export type CallEvent = typeof CallEvent.Type

export const TranscriptTurn = Schema.Struct({
  speaker: Schema.String,
  text: Schema.String,
  offset_ms: nullable(Schema.Finite)
})
export type TranscriptTurn = typeof TranscriptTurn.Type

/** A completed-call record (`event` = call_completed): a full record with `direction`, a content patch without. */
export const CompletedCall = Schema.Struct({
  event: Schema.Literal("call_completed"),
  call_id: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")),
  direction: opt(oneOf(["inbound", "outbound"])),
  from: nullable(Schema.String),
  to: nullable(Schema.String),
  started_at: nullable(DateTimeWithOffset),
  answered_at: nullable(DateTimeWithOffset),
  ended_at: nullable(DateTimeWithOffset),
  duration_seconds: nullable(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  agent: nullable(Schema.Struct({ id: nullable(Schema.Union([Schema.String, Schema.Finite])), email: nullable(Schema.String) })),
  caller: nullable(Schema.Struct({
    name: nullable(Schema.String), first_name: nullable(Schema.String), last_name: nullable(Schema.String), email: nullable(Schema.String)
  })),
  outcome: nullable(maxLength(100)),
  recording_url: nullable(maxLength(2048)),
  // Over-long transcripts are truncated by the ingress, never refused: no length check here.
  transcript: nullable(Schema.Array(TranscriptTurn)),
  transcript_text: nullable(Schema.String),
  summary: nullable(maxLength(20_000)),
  language: nullable(maxLength(20)),
  metadata: nullable(Schema.Record(Schema.String, Schema.Unknown))
})
export type CompletedCall = typeof CompletedCall.Type

export const CtiPayload = Schema.Record(Schema.String, Schema.Unknown).annotate({
  description: "A call event (`event_type`: call_ringing, call_answered, call_hangup, call_missed, record_available) or a " +
    "completed-call record (`event`: call_completed). Keys in snake_case or camelCase, at the top level or under `data`."
})

export const CtiResponse = Schema.Struct({ success: Schema.Literal(true), data: Schema.Record(Schema.String, Schema.Unknown) })

export const DialRequest = Schema.Struct({
  to: opt(NonEmptyString.annotate({ description: "E.164; defaults to the contact's phone" })),
  provider: opt(NonEmptyString.annotate({ description: "which CTI integration dials; defaults to the tenant's only one" })),
  agent: opt(Schema.Struct({ id: opt(Schema.Union([Schema.String, Schema.Finite])), email: opt(Schema.String), extension: opt(maxLength(50)) }))
})
export type DialRequest = typeof DialRequest.Type

export const CallsPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    calls: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)),
    next_cursor: Schema.NullOr(Schema.String)
  })
})

const Timestamp = Schema.String.annotate({ format: "date-time" })

/** A stored transcript turn: `offset_ms` is null when the provider sent none (always for `transcript_text`). */
export const StoredTranscriptTurn = Schema.Struct({
  speaker: Schema.String.annotate({ description: "guest, agent, unknown, or the provider's own label" }),
  text: Schema.String,
  offset_ms: Schema.NullOr(Schema.Finite).annotate({ description: "milliseconds from the start of the call" })
})

/** One call as stored: what the provider's events and completed-call records said, merged (see README, Telephony). */
export const CallRecord = Schema.Struct({
  call_record_id: Schema.String.annotate({ description: "The platform's id of the call (also in call.* events)" }),
  provider: Schema.String,
  call_id: Schema.String.annotate({ description: "The provider's id of the call" }),
  direction: Schema.NullOr(Schema.Literals(["inbound", "outbound"])),
  from_number: Schema.NullOr(Schema.String),
  to_number: Schema.NullOr(Schema.String),
  contact_id: Schema.NullOr(Schema.String).annotate({ description: "The guest's contact, when the guest's number is known" }),
  status: Schema.String.annotate({ description: "received, ringing, in_progress, ended, missed or completed" }),
  answered: Schema.NullOr(Schema.Boolean),
  outcome: Schema.NullOr(Schema.String).annotate({ description: "As stored: no_answer and voicemail become missed" }),
  outcome_raw: Schema.NullOr(Schema.String).annotate({ description: "The outcome as the provider sent it" }),
  started_at: Schema.NullOr(Timestamp),
  answered_at: Schema.NullOr(Timestamp),
  ended_at: Schema.NullOr(Timestamp),
  duration_seconds: Schema.NullOr(Schema.Int),
  agent: Schema.NullOr(Schema.Struct({
    id: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Finite]))),
    email: Schema.optionalKey(Schema.NullOr(Schema.String))
  })),
  caller: Schema.NullOr(Schema.Struct({
    first_name: Schema.optionalKey(Schema.String),
    last_name: Schema.optionalKey(Schema.String),
    email: Schema.optionalKey(Schema.String)
  })).annotate({ description: "Who the caller said they were (names that are carrier labels are left out)" }),
  recording_url: Schema.NullOr(Schema.String),
  transcript: Schema.NullOr(Schema.Array(StoredTranscriptTurn)),
  transcript_truncated: Schema.Boolean.annotate({ description: "The transcript was cut at 500 turns or 200,000 characters" }),
  transcript_received_at: Schema.NullOr(Timestamp),
  summary: Schema.NullOr(Schema.String),
  language: Schema.NullOr(Schema.String),
  metadata: Schema.Record(Schema.String, Schema.Unknown),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type CallRecord = typeof CallRecord.Type

export const CallRecordResponse = Schema.Struct({ success: Schema.Literal(true), data: CallRecord })

/** The first message about a call: the same body as CtiResponse, answered 201 (later ones are answered 200). */
export class CallCreated extends Schema.Class<CallCreated>("CallCreated")(CtiResponse) {}
