import { Schema } from "effect"
import { Warning } from "../../schemas/common.ts"
import { CallEventTypes, TranscriptTurn } from "../../schemas/telephony.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)

export const CallerFill = Schema.Struct({
  first_name: opt(Schema.String),
  last_name: opt(Schema.String),
  email: opt(Schema.String)
})
export type CallerFill = typeof CallerFill.Type

/** What one message says about a call. Absent = says nothing (never erases what is stored). */
export const CallFacts = Schema.Struct({
  direction: opt(Schema.Literals(["inbound", "outbound"])),
  from_number: opt(Schema.String),
  to_number: opt(Schema.String),
  status: opt(Schema.String),
  started_at: opt(Schema.String),
  answered_at: opt(Schema.String),
  ended_at: opt(Schema.String),
  answered: opt(Schema.Boolean),
  duration_seconds: opt(Schema.Number),
  agent: opt(Schema.Record(Schema.String, Schema.Unknown)),
  caller: opt(CallerFill),
  outcome: opt(Schema.String),
  outcome_raw: opt(Schema.String),
  recording_url: opt(Schema.String),
  transcript: opt(Schema.Array(TranscriptTurn)),
  transcript_truncated: opt(Schema.Boolean),
  summary: opt(Schema.String),
  language: opt(Schema.String),
  metadata: opt(Schema.Record(Schema.String, Schema.Unknown))
})
export type CallFacts = typeof CallFacts.Type

/** A streamed call event or a completed-call record (full or a content patch), keyed by provider + call_id. */
export const CallCommand = Schema.Struct({
  provider: Schema.String,
  call_id: Schema.String,
  kind: Schema.Literals(["event", "full_record", "patch"]),
  event_type: opt(Schema.Literals(CallEventTypes)),
  facts: CallFacts,
  /** The payload as received (canonical keys), kept in the call's event log for events. */
  raw: opt(Schema.Record(Schema.String, Schema.Unknown)),
  warnings: Schema.Array(Warning)
})
export type CallCommand = typeof CallCommand.Type

export const CallResult = Schema.Struct({
  call_id: Schema.String,
  call_record_id: Schema.String,
  kind: Schema.String,
  event_type: Schema.String,
  status: Schema.NullOr(Schema.String),
  contact_id: Schema.NullOr(Schema.String),
  is_new_contact: Schema.Boolean,
  /** First message about this call (the edge answers 201), else 200. */
  is_new: Schema.Boolean,
  warnings: Schema.Array(Warning)
})
export type CallResult = typeof CallResult.Type

/** The telephony actor: one call's record, patched idempotently by events and completed-call records. */
export const TelephonyProtocol = ActorProtocol.make("telephony", {
  key: (p) => `${p.provider}:${p.call_id}`,
  messages: {
    record: ActorProtocol.message({ payload: CallCommand, success: CallResult })
  }
})
