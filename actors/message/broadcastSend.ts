import { Effect, Result, Schema } from "effect"
import { type BroadcastDecision, capHoursOf, capWindowStart, decideBroadcast } from "../../core/message/broadcastGate.ts"
import { gate } from "../../core/message/gate.ts"
import { isTimeZone, quietHoursEnd } from "../../core/message/quietHours.ts"
import { loadContactState } from "../../core/segment/contactState.ts"
import { matches } from "../../core/segment/evaluate.ts"
import { validateDefinition } from "../../core/segment/validate.ts"
import type { MessageCategory } from "../../schemas/message.ts"
import { SegmentDefinition } from "../../schemas/segment.ts"
import * as Actor from "../runtime/Actor.ts"
import { customFieldDefinitions, loadBroadcastForSend, recentMarketingCount } from "./broadcastRepository.ts"
import type { SendCommand } from "./protocol.ts"
import type { ContactForSend } from "./repository.ts"

const decodeDefinitions = Schema.decodeUnknownResult(Schema.Array(SegmentDefinition))

/**
 * The broadcast's definition and exclusions as stored (checked when the broadcast was written; read defensively, since
 * a row is not a contract). Undefined when they cannot be read: no recipient can then be shown to still match.
 */
const audienceOf = (definition: unknown, exclusions: unknown) => {
  const decoded = decodeDefinitions([definition, ...(Array.isArray(exclusions) ? exclusions : [null])])
  if (Result.isFailure(decoded)) return undefined
  const [include, ...exclude] = decoded.success
  return { include: include!, exclude }
}

/**
 * Decides one broadcast message at send time (core/message/broadcastGate.ts gives the order and the reasons): reads
 * the broadcast, then, only for a broadcast still sending within its deadline, the contact's state for the segment
 * re-check (narrowed to what the definitions look at), the custom fields, and the cap's count, in one round trip.
 * `now` is the actor's Clock time, the instant every rule is judged at.
 */
export const decideBroadcastSend = Effect.fn("MessageActor.decideBroadcastSend")(function*(
  cmd: SendCommand & { readonly broadcast_id: string },
  contact: ContactForSend,
  category: MessageCategory,
  suppressed: boolean,
  now: Date
) {
  const b = yield* Actor.query((tx, scope) => loadBroadcastForSend(tx, scope, cmd.broadcast_id, contact.id))
  // A marketing broadcast gates every message as marketing, whatever the template or command says.
  const gateCategory = b?.category === "marketing" ? "marketing" : cmd.gate_as ?? category
  const skip = gate(contact, cmd.channel, gateCategory, suppressed)
  // The rules before the segment re-check, on what is known so far: most skips need no further read.
  const early = decideBroadcast({
    status: b?.status, sendDeadline: b?.send_deadline ?? null, now, gate: skip, matches: true, category: "utility",
    recentMarketing: 0, capHours: 0, quietUntil: now.getTime()
  })
  if (b === undefined || !early.send) return early

  const audience = audienceOf(b.definition, b.exclusions)
  if (audience === undefined) {
    yield* Effect.logWarning("broadcast definition unreadable: recipient skipped").pipe(Effect.annotateLogs({ broadcast_id: cmd.broadcast_id }))
    return { send: false, reason: "no_longer_matches" } satisfies BroadcastDecision
  }
  const capHours = capHoursOf(b.marketing_cap_hours)
  const since = capWindowStart(now, capHours)
  // One definition covering the audience and its exclusions: the state loaded is only what they look at.
  const lookedAt: SegmentDefinition = { version: 1, match: { all: [audience.include.match, ...audience.exclude.map((d) => d.match)] } }
  const [state, customFields, recent] = yield* Actor.query((tx, scope) => Promise.all([
    loadContactState(tx, scope.tenant_id, scope.sandbox, contact.id, lookedAt),
    customFieldDefinitions(tx, scope),
    since === undefined || gateCategory !== "marketing" ? 0 : recentMarketingCount(tx, scope, contact.id, cmd.channel, since, cmd.message_id)
  ]))
  // Checked when the broadcast was written, but against custom fields that may have changed since (a field removed or
  // retyped): a definition no longer valid cannot show that anyone still matches, and must not fail the send.
  const invalid = [audience.include, ...audience.exclude].flatMap((d) => validateDefinition(d, customFields))
  if (invalid.length > 0) {
    yield* Effect.logWarning("broadcast definition no longer valid: recipient skipped").pipe(
      Effect.annotateLogs({ broadcast_id: cmd.broadcast_id, issue: `${invalid[0]!.path}: ${invalid[0]!.message}` })
    )
  }
  const ctx = { now, customFields }
  const stillMatches = invalid.length === 0 && state !== undefined && matches(audience.include, state, ctx) &&
    !audience.exclude.some((d) => matches(d, state, ctx))
  const zone = b.time_zone !== null && isTimeZone(b.time_zone) ? b.time_zone : "UTC"
  return decideBroadcast({
    status: b.status, sendDeadline: b.send_deadline, now, gate: skip, matches: stillMatches, category: gateCategory === "marketing" ? "marketing" : "utility",
    recentMarketing: recent, capHours,
    quietUntil: b.quiet_hours === null ? now.getTime() : quietHoursEnd(now.getTime(), b.quiet_hours, zone)
  })
})
