import { Schema } from "effect"
import { boundedNumber, DateTimeWithOffset, FreeFormObject, maxLength, NonEmptyString, oneOf, SafeNumber, SafeString, Warning } from "./common.ts"
import { listOf, ok } from "./list.ts"
import { CTI_BODY_LIMIT } from "./limits.ts"

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))

export const CallEventTypes = ["call_ringing", "call_answered", "call_hangup", "call_missed", "record_available"] as const
export type CallEventType = typeof CallEventTypes[number]

/** The longest call: 24 hours, the most any provider lets a call run (Twilio's maximum time limit). */
export const MAX_CALL_SECONDS = 86_400
const CallSeconds = boundedNumber(0, MAX_CALL_SECONDS)
/** An id a provider sends as a string or a number. */
const ProviderId = Schema.Union([SafeString, SafeNumber])

/** A streamed call event, after keys were read as snake_case and `data` was merged in. */
export const CallEvent = Schema.Struct({
  event_type: oneOf(CallEventTypes),
  call_id: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")),
  user_id: nullable(ProviderId),
  from_number: nullable(SafeString),
  to_number: nullable(SafeString.annotate({
    description: "The number called (the hotel's line or an extension on an inbound call, the guest on an outbound one); a value that is not E.164 is kept as sent with warning not_e164"
  })),
  direction: nullable(oneOf(["inbound", "outbound"])),
  duration: nullable(CallSeconds),
  recording_url: nullable(maxLength(2048)),
  timestamp: nullable(DateTimeWithOffset)
})
export type CallEvent = typeof CallEvent.Type

export const TranscriptTurn = Schema.Struct({
  speaker: SafeString,
  text: SafeString,
  offset_ms: nullable(boundedNumber(0, MAX_CALL_SECONDS * 1000))
})
export type TranscriptTurn = typeof TranscriptTurn.Type

/** A completed-call record (`event` = call_completed): a full record with `direction`, a content patch without. */
export const CompletedCall = Schema.Struct({
  event: Schema.Literal("call_completed"),
  call_id: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")),
  direction: opt(oneOf(["inbound", "outbound"])),
  from: nullable(SafeString),
  to: nullable(SafeString),
  started_at: nullable(DateTimeWithOffset),
  answered_at: nullable(DateTimeWithOffset),
  ended_at: nullable(DateTimeWithOffset),
  duration_seconds: nullable(CallSeconds),
  agent: nullable(Schema.Struct({ id: nullable(ProviderId), email: nullable(SafeString) })),
  caller: nullable(Schema.Struct({
    name: nullable(SafeString), first_name: nullable(SafeString), last_name: nullable(SafeString), email: nullable(SafeString)
  })),
  outcome: nullable(maxLength(100)),
  recording_url: nullable(maxLength(2048)),
  // Over-long transcripts are truncated by the ingress, never refused: no length check here.
  transcript: nullable(Schema.Array(TranscriptTurn)),
  transcript_text: nullable(SafeString),
  summary: nullable(maxLength(20_000)),
  language: nullable(maxLength(20)),
  metadata: nullable(FreeFormObject())
})
export type CompletedCall = typeof CompletedCall.Type

export const CtiPayload = FreeFormObject({ maxKeys: 20_000, maxBytes: CTI_BODY_LIMIT }).annotate({
  description: "A call event (`event_type`: call_ringing, call_answered, call_hangup, call_missed, record_available) or a " +
    "completed-call record (`event`: call_completed). Keys in snake_case or camelCase, at the top level or under `data`."
})


export const DialRequest = Schema.Struct({
  to: opt(NonEmptyString.annotate({ description: "E.164; defaults to the contact's phone" })),
  provider: opt(NonEmptyString.annotate({ description: "which CTI integration dials; defaults to the tenant's only one" })),
  agent: opt(Schema.Struct({ id: opt(ProviderId), email: opt(SafeString), extension: opt(maxLength(50)) }))
})
export type DialRequest = typeof DialRequest.Type


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
  metadata: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "The provider's own metadata of the call, as it sent it" }),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type CallRecord = typeof CallRecord.Type

export const CallRecordResponse = ok(CallRecord)

/** One call of a contact's list: the record without its transcript, caller and outcome_raw, and whether it has a transcript. */
const { transcript: _t, caller: _c, outcome_raw: _o, transcript_truncated: _tt, transcript_received_at: _tr, contact_id: _ci, ...summary } = CallRecord.fields
export const CallSummary = Schema.Struct({ ...summary, has_transcript: Schema.Boolean })
export const CallsPage = listOf("calls", CallSummary)

const NullString = Schema.NullOr(Schema.String)
const StaySummary = Schema.NullOr(Schema.Struct({
  reservation_id: Schema.String, external_reservation_id: Schema.String, hotel_id: Schema.String, hotel_name: Schema.String,
  status: Schema.String, check_in: Schema.String, check_out: Schema.String
}))
/** What an agent's screen shows when the phone rings (call_ringing only). */
export const ScreenPop = Schema.Struct({
  matched: Schema.Boolean,
  contact: Schema.NullOr(Schema.Struct({
    id: Schema.String, first_name: NullString, last_name: NullString, language: NullString, email: NullString,
    tier: Schema.NullOr(Schema.Struct({ slug: Schema.String, name: Schema.String })).annotate({ description: "the loyalty tier of the contact's email" }),
    last_stay: StaySummary,
    next_stay: StaySummary
  }))
})
/** What a CTI message did to its call. */
export const CallAnswer = Schema.Struct({
  call_id: Schema.String,
  call_record_id: Schema.String,
  kind: Schema.Literals(["event", "full_record", "patch"]),
  event_type: Schema.String,
  status: NullString,
  contact_id: NullString,
  is_new_contact: Schema.Boolean,
  warnings: Schema.Array(Warning),
  screen_pop: Schema.optionalKey(ScreenPop)
})
export const CtiResponse = ok(CallAnswer)

/** The first message about a call: the same body as CtiResponse, answered 201 (later ones are answered 200). */
export class CallCreated extends Schema.Class<CallCreated>("CallCreated")(CtiResponse) {}

/** A click-to-call request, recorded and handed to the provider adapter. */
export const DialRequested = ok(Schema.Struct({
  dial_request_id: Schema.String, status: Schema.Literal("requested"), contact_id: Schema.String, to: Schema.String, provider: Schema.String
}))
