import type { Warning } from "../../schemas/common.ts"
import type { CallEventType, TranscriptTurn } from "../../schemas/telephony.ts"

export interface CallerFill {
  readonly first_name?: string | undefined
  readonly last_name?: string | undefined
  readonly email?: string | undefined
}

/** What one message says about a call. Absent = says nothing (never erases what is stored). */
export interface CallFacts {
  readonly direction?: "inbound" | "outbound" | undefined
  readonly from_number?: string | undefined
  readonly to_number?: string | undefined
  readonly status?: string | undefined
  readonly started_at?: string | undefined
  readonly answered_at?: string | undefined
  readonly ended_at?: string | undefined
  readonly answered?: boolean | undefined
  readonly duration_seconds?: number | undefined
  readonly agent?: Record<string, unknown> | undefined
  readonly caller?: CallerFill | undefined
  readonly outcome?: string | undefined
  readonly outcome_raw?: string | undefined
  readonly recording_url?: string | undefined
  readonly transcript?: ReadonlyArray<TranscriptTurn> | undefined
  readonly transcript_truncated?: boolean | undefined
  readonly summary?: string | undefined
  readonly language?: string | undefined
  readonly metadata?: Record<string, unknown> | undefined
}

/** Payload of a `call.event` or `call.record` envelope, keyed by provider + call_id. */
export interface CallCommand {
  readonly provider: string
  readonly call_id: string
  readonly kind: "event" | "full_record" | "patch"
  readonly event_type?: CallEventType | undefined
  readonly facts: CallFacts
  /** The payload as received (canonical keys), kept in the call's event log for events. */
  readonly raw?: Record<string, unknown> | undefined
  readonly warnings: ReadonlyArray<Warning>
}
