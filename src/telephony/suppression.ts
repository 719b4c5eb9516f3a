import { Effect } from "effect"
import type { CallCommand } from "../../actors/telephony/protocol.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { type SubjectCheck, suppressedWarning } from "../privacy/subjectCheck.ts"

/** Where the command's numbers sit in the request body: a completed-call record says from/to, an event from_number/to_number. */
const fieldOf = (cmd: CallCommand, side: "from" | "to") => (cmd.kind === "event" ? `${side}_number` : side)

/**
 * A call with a person a privacy request suppressed (issue 26): like a reservation, the call keeps its facts (times,
 * direction, agent, outcome: the hotel's call statistics) and drops the person: their number (so no contact is linked
 * or made), and everything said about or by them (caller, transcript, summary, recording, metadata, the event's raw
 * payload). Answered as usual, with a `subject_suppressed` warning naming the number's field. Undefined: nothing to
 * leave out.
 */
export const withoutSuppressedCaller = Effect.fn("Telephony.withoutSuppressedCaller")(function*(
  check: SubjectCheck, scope: TenantScope, cmd: CallCommand
) {
  const f = cmd.facts
  const numberOf = (side: "from" | "to") => {
    const n = side === "from" ? f.from_number : f.to_number
    return n?.startsWith("+") ? n : undefined
  }
  // The guest's side once the direction is known, else either number; with the caller's email, one person.
  const sides = (f.direction === "inbound" ? ["from"] as const : f.direction === "outbound" ? ["to"] as const : ["from", "to"] as const)
    .filter((side) => numberOf(side) !== undefined)
  const people = [...sides.map((side) => ({ phone: numberOf(side) })), { email: f.caller?.email }]
  if ((yield* check.suppressedPeople(scope, people)).size === 0) return undefined
  return {
    ...cmd,
    facts: {
      ...f,
      from_number: sides.includes("from") ? undefined : f.from_number,
      to_number: sides.includes("to") ? undefined : f.to_number,
      caller: undefined, transcript: undefined, transcript_truncated: undefined, summary: undefined, recording_url: undefined, metadata: undefined
    },
    ...(cmd.raw === undefined ? {} : { raw: { call_id: cmd.call_id, event_type: cmd.event_type } }),
    warnings: [...cmd.warnings, ...(sides.length === 0 ? [suppressedWarning("caller")] : sides.map((s) => suppressedWarning(fieldOf(cmd, s))))]
  } satisfies CallCommand
})
