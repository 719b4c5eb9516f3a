import { Result, Schema } from "effect"
import type { CallCommand, CallFacts } from "../../actors/telephony/protocol.ts"
import type { Warning } from "../../schemas/common.ts"
import { CallEvent, CallEventTypes, CompletedCall, MAX_CALL_SECONDS } from "../../schemas/telephony.ts"
import { issueDetails, summarise } from "../http/issues.ts"
import { secondsBetween, storedOutcome } from "../../core/normalise/call.ts"
import { normalisePhone } from "../../core/normalise/index.ts"
import { callerClaim } from "./caller.ts"
import { canonicalPayload } from "./payload.ts"
import { capTranscript, splitTranscriptText } from "./transcript.ts"

export type CtiParse =
  | { readonly ok: true; readonly command: CallCommand; readonly guestNumber: string | undefined }
  | { readonly ok: false; readonly status: 400 | 422; readonly code: string; readonly message: string; readonly details: Record<string, Array<string>> }

const invalid = (details: Record<string, Array<string>>, code = "VALIDATION_ERROR", status: 400 | 422 = 400): CtiParse =>
  ({ ok: false, status, code, message: summarise(details), details })

const decodeEvent = Schema.decodeUnknownResult(CallEvent, { errors: "all" })
const decodeCompleted = Schema.decodeUnknownResult(CompletedCall, { errors: "all" })

/**
 * Both numbers in E.164. The guest's side (from on inbound, to on outbound) must be a valid number; the hotel's side
 * may be an internal extension and is kept as sent, with a warning, when it is not.
 */
const numbers = (
  direction: "inbound" | "outbound" | undefined,
  from: string | null | undefined,
  to: string | null | undefined,
  names: { from: string; to: string },
  warnings: Array<Warning>
): { from?: string; to?: string; guest?: string } | Record<string, Array<string>> => {
  const out: { from?: string; to?: string; guest?: string } = {}
  const errors: Record<string, Array<string>> = {}
  for (const side of ["from", "to"] as const) {
    const raw = side === "from" ? from : to
    if (raw == null || raw.trim() === "") continue
    const isGuest = (direction === "inbound" && side === "from") || (direction === "outbound" && side === "to")
    const p = normalisePhone(raw)
    if (p.ok) out[side] = p.e164
    else if (isGuest) errors[names[side]] = [p.reason === "placeholder" ? "is a placeholder number, not a guest's" : "must be a phone number in E.164, e.g. +34600111222"]
    else {
      out[side] = raw.trim().slice(0, 50)
      warnings.push({ field: names[side], code: "not_e164", message: "kept as sent: not an E.164 number" })
    }
  }
  if (Object.keys(errors).length > 0) return errors
  const guestSide = direction === "inbound" ? out.from : direction === "outbound" ? out.to : undefined
  return guestSide !== undefined && guestSide.startsWith("+") ? { ...out, guest: guestSide } : out
}

const isErrors = (v: object): v is Record<string, Array<string>> => Object.values(v).some(Array.isArray)

const parseEvent = (p: Record<string, unknown>, provider: string): CtiParse => {
  const decoded = decodeEvent(p)
  if (Result.isFailure(decoded)) return invalid(issueDetails(decoded.failure.issue))
  const e = decoded.success
  const warnings: Array<Warning> = []
  const n = numbers(e.direction ?? undefined, e.from_number, e.to_number, { from: "from_number", to: "to_number" }, warnings)
  if (isErrors(n)) return invalid(n)
  const at = e.timestamp ?? new Date().toISOString()
  const common: CallFacts = { direction: e.direction ?? undefined, from_number: n.from, to_number: n.to }
  const byType: Record<typeof CallEventTypes[number], CallFacts> = {
    call_ringing: { ...common, status: "ringing", started_at: at },
    call_answered: { ...common, status: "in_progress", answered_at: at, answered: true },
    call_hangup: { ...common, status: "ended", ended_at: at, duration_seconds: e.duration == null ? undefined : Math.round(e.duration) },
    call_missed: { ...common, status: "missed", outcome: "missed", answered: false, ended_at: at },
    record_available: { ...common, recording_url: e.recording_url ?? undefined }
  }
  return {
    ok: true,
    guestNumber: n.guest,
    command: { provider, call_id: e.call_id, kind: "event", event_type: e.event_type, facts: byType[e.event_type], raw: p, warnings }
  }
}

const parseCompleted = (p: Record<string, unknown>, provider: string): CtiParse => {
  const decoded = decodeCompleted(p)
  if (Result.isFailure(decoded)) return invalid(issueDetails(decoded.failure.issue))
  const c = decoded.success
  const full = c.direction !== undefined
  if (full && (c.started_at == null || c.ended_at == null)) {
    const missing = Object.fromEntries((["started_at", "ended_at"] as const).filter((k) => c[k] == null).map((k) => [k, ["is required in a full record (one with direction); the record was dropped"]]))
    return invalid(missing, "CALL_RECORD_INCOMPLETE", 422)
  }
  if (full && c.duration_seconds == null && secondsBetween(c.started_at!, c.ended_at!) > MAX_CALL_SECONDS) {
    return invalid({ ended_at: [`must be at most ${MAX_CALL_SECONDS} seconds (24 hours) after started_at`] })
  }
  const warnings: Array<Warning> = []
  const n = numbers(c.direction, c.from, c.to, { from: "from", to: "to" }, warnings)
  if (isErrors(n)) return invalid(n)
  const turns = c.transcript ?? (c.transcript_text ? splitTranscriptText(c.transcript_text) : undefined)
  const capped = turns === undefined ? undefined : capTranscript(turns)
  if (capped?.truncated) warnings.push({ field: "transcript", code: "truncated", message: "transcript cut to 500 turns and 200000 characters" })
  const caller = callerClaim(c.caller)
  if (c.caller && (c.caller.name || c.caller.first_name || c.caller.last_name) && !caller?.first_name && !caller?.last_name) {
    warnings.push({ field: "caller", code: "not_a_name", message: "caller name is a carrier label or placeholder; ignored" })
  }
  const answered = full ? c.answered_at != null : c.answered_at === undefined ? undefined : c.answered_at !== null
  const outcome = c.outcome == null ? undefined : storedOutcome(c.outcome)
  const facts: CallFacts = {
    direction: c.direction,
    from_number: n.from,
    to_number: n.to,
    status: full ? (answered && outcome !== "missed" ? "completed" : "missed") : undefined,
    started_at: c.started_at ?? undefined,
    answered_at: c.answered_at ?? undefined,
    ended_at: c.ended_at ?? undefined,
    answered,
    duration_seconds: c.duration_seconds != null ? Math.round(c.duration_seconds) : full ? secondsBetween(c.started_at!, c.ended_at!) : undefined,
    agent: c.agent == null ? undefined : { ...c.agent },
    caller,
    outcome,
    outcome_raw: c.outcome ?? undefined,
    recording_url: c.recording_url ?? undefined,
    transcript: capped?.turns,
    transcript_truncated: capped?.truncated,
    summary: c.summary ?? undefined,
    language: c.language ?? undefined,
    metadata: c.metadata ?? undefined
  }
  return { ok: true, guestNumber: n.guest, command: { provider, call_id: c.call_id, kind: full ? "full_record" : "patch", facts, warnings } }
}

/** A CTI webhook body as the telephony actor's command, or the 4xx it deserves. */
export const parseCti = (body: Record<string, unknown>, provider: string): CtiParse => {
  const p = canonicalPayload(body)
  if (p.event === "call_completed") return parseCompleted(p, provider)
  if (p.event_type !== undefined) return parseEvent(p, provider)
  return invalid({
    event_type: [`is required: one of ${CallEventTypes.join(", ")} (or event: call_completed for a completed-call record)`]
  })
}
