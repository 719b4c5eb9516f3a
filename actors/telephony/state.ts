import type { CallFacts } from "./protocol.ts"

export interface CallRow {
  readonly id: string
  readonly direction: string | null
  readonly from_number: string | null
  readonly to_number: string | null
  readonly contact_id: string | null
  readonly status: string
  readonly started_at: string | null
  readonly answered_at: string | null
  readonly ended_at: string | null
  readonly answered: boolean | null
  readonly duration_seconds: number | null
  readonly agent: Record<string, unknown> | null
  readonly caller: Record<string, unknown> | null
  readonly outcome: string | null
  readonly outcome_raw: string | null
  readonly recording_url: string | null
  readonly transcript: ReadonlyArray<unknown> | null
  readonly transcript_truncated: boolean
  readonly transcript_received_at: string | null
  readonly summary: string | null
  readonly language: string | null
  readonly metadata: Record<string, unknown>
  readonly version: number
}

const SCALARS = [
  "direction", "from_number", "to_number", "status", "started_at", "answered_at", "ended_at", "answered",
  "duration_seconds", "agent", "outcome", "outcome_raw", "recording_url", "summary", "language"
] as const

/**
 * The call after one more message: every fact sent replaces the stored one; facts not sent stay (a re-send never
 * erases); metadata merges with stored keys kept; the first transcript is remembered by its arrival time.
 */
export const mergeCall = (existing: CallRow | undefined, id: string, facts: CallFacts, now: string): CallRow => {
  const base: CallRow = existing ?? {
    id, direction: null, from_number: null, to_number: null, contact_id: null, status: "received", started_at: null,
    answered_at: null, ended_at: null, answered: null, duration_seconds: null, agent: null, caller: null, outcome: null,
    outcome_raw: null, recording_url: null, transcript: null, transcript_truncated: false, transcript_received_at: null,
    summary: null, language: null, metadata: {}, version: 0
  }
  const next: Record<string, unknown> = { ...base }
  for (const key of SCALARS) if (facts[key] !== undefined) next[key] = facts[key]
  if (facts.caller !== undefined) next.caller = { ...(base.caller ?? {}), ...facts.caller }
  if (facts.transcript !== undefined && facts.transcript.length > 0) {
    next.transcript = facts.transcript
    next.transcript_truncated = facts.transcript_truncated ?? false
    if (base.transcript_received_at === null) next.transcript_received_at = now
  }
  if (facts.metadata !== undefined) next.metadata = { ...facts.metadata, ...base.metadata }
  next.version = base.version + 1
  return next as unknown as CallRow
}

/** True when this merge is the first time the call has a transcript (the memory-extraction hook fires once). */
export const transcriptArrived = (existing: CallRow | undefined, next: CallRow): boolean =>
  (existing?.transcript_received_at ?? null) === null && next.transcript_received_at !== null
