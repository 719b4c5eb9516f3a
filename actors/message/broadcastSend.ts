import { Effect, Result, Schema } from "effect"
import { type BroadcastDecision, capHoursOf, capWindowStart, decideBroadcast } from "../../core/message/broadcastGate.ts"
import { gate } from "../../core/message/gate.ts"
import { isTimeZone, quietHoursEnd } from "../../core/message/quietHours.ts"
import { type ContactState, loadContactState } from "../../core/segment/contactState.ts"
import { matches } from "../../core/segment/evaluate.ts"
import { validateDefinition } from "../../core/segment/validate.ts"
import type { MessageCategory } from "../../schemas/message.ts"
import { SegmentDefinition } from "../../schemas/segment.ts"
import type { Tx } from "../../core/db/Database.ts"
import type { CustomFieldDef } from "../../core/segment/catalog.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { type BroadcastForSend, recentMarketingCount } from "./broadcastRepository.ts"
import type { SendCommand } from "./protocol.ts"
import type { ContactForSend } from "./repository.ts"
import { customFields, loadBroadcastsForSend } from "./sendStatements.ts"

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

/** What a broadcast's message is decided on that needs only its command: the broadcast row and the custom fields. */
export interface BroadcastFacts {
  readonly broadcast: BroadcastForSend | undefined
  readonly customFields: ReadonlyArray<CustomFieldDef>
}

/**
 * What needs the broadcast row too: its audience as read (undefined: unreadable), the contact's state for the segment
 * re-check, and the frequency cap's count.
 */
export interface RecipientFacts {
  readonly audience: ReturnType<typeof audienceOf>
  readonly state: ContactState | undefined
  readonly recent: number
}

/** A marketing broadcast gates every message as marketing, whatever the template or command says. */
const gateCategoryOf = (b: BroadcastForSend | undefined, cmd: SendCommand, category: MessageCategory) =>
  b?.category === "marketing" ? "marketing" : cmd.gate_as ?? category

/** The rules before the segment re-check, on what the first reads tell: most skips need no further read. */
const earlyDecision = (b: BroadcastForSend | undefined, skip: ReturnType<typeof gate>, now: Date) =>
  decideBroadcast({
    status: b?.status, sendDeadline: b?.send_deadline ?? null, now, gate: skip, matches: true, category: "utility",
    recentMarketing: 0, capHours: 0, quietUntil: now.getTime()
  })

/** The sender's first reads for a broadcast's message, asked with its other first reads (one statement each per wave). */
export const loadBroadcastFacts = (broadcastId: string, contactId: string) =>
  Effect.map(
    Effect.all([loadBroadcastsForSend({ broadcast_id: broadcastId, contact_id: contactId }), customFields()], { concurrency: "unbounded" }),
    ([broadcast, fields]): BroadcastFacts => ({ broadcast, customFields: fields })
  )

/**
 * The second reads, in the round trip of the suppression lookup: the contact's state (narrowed to what the audience
 * and its exclusions look at) and the cap's count, read only where the rules before them would still send (the
 * address's suppression, read beside them, is then applied by `decideBroadcastSend`).
 */
export const loadRecipientFacts = async (
  tx: Tx, scope: TenantScope, cmd: SendCommand, contact: ContactForSend, facts: BroadcastFacts, category: MessageCategory, now: Date
): Promise<RecipientFacts> => {
  const b = facts.broadcast
  const gateCategory = gateCategoryOf(b, cmd, category)
  const audience = b === undefined ? undefined : audienceOf(b.definition, b.exclusions)
  if (b === undefined || audience === undefined || !earlyDecision(b, gate(contact, cmd.channel, gateCategory, false), now).send) {
    return { audience, state: undefined, recent: 0 }
  }
  const since = capWindowStart(now, capHoursOf(b.marketing_cap_hours))
  // One definition covering the audience and its exclusions: the state loaded is only what they look at.
  const lookedAt: SegmentDefinition = { version: 1, match: { all: [audience.include.match, ...audience.exclude.map((d) => d.match)] } }
  const [state, recent] = await Promise.all([
    loadContactState(tx, scope.tenant_id, scope.sandbox, contact.id, lookedAt),
    since === undefined || gateCategory !== "marketing" ? 0 : recentMarketingCount(tx, scope, contact.id, cmd.channel, since, cmd.message_id)
  ])
  return { audience, state, recent }
}

/**
 * Decides one broadcast message at send time (core/message/broadcastGate.ts gives the order and the reasons) on the
 * reads above: a broadcast no longer sending or past its deadline, a contact the gate refuses, one no longer in the
 * audience, capped, or held by quiet hours. `now` is the actor's Clock time, the instant every rule is judged at.
 */
export const decideBroadcastSend = Effect.fn("MessageActor.decideBroadcastSend")(function*(
  cmd: SendCommand & { readonly broadcast_id: string },
  contact: ContactForSend,
  category: MessageCategory,
  suppressed: boolean,
  now: Date,
  facts: BroadcastFacts,
  recipient: RecipientFacts
) {
  const b = facts.broadcast
  const gateCategory = gateCategoryOf(b, cmd, category)
  const skip = gate(contact, cmd.channel, gateCategory, suppressed)
  const early = earlyDecision(b, skip, now)
  if (b === undefined || !early.send) return early

  const audience = recipient.audience
  if (audience === undefined) {
    yield* Effect.logWarning("broadcast definition unreadable: recipient skipped").pipe(Effect.annotateLogs({ broadcast_id: cmd.broadcast_id }))
    return { send: false, reason: "no_longer_matches" } satisfies BroadcastDecision
  }
  const capHours = capHoursOf(b.marketing_cap_hours)
  const customFields = facts.customFields
  // Checked when the broadcast was written, but against custom fields that may have changed since (a field removed or
  // retyped): a definition no longer valid cannot show that anyone still matches, and must not fail the send.
  const invalid = [audience.include, ...audience.exclude].flatMap((d) => validateDefinition(d, customFields))
  if (invalid.length > 0) {
    yield* Effect.logWarning("broadcast definition no longer valid: recipient skipped").pipe(
      Effect.annotateLogs({ broadcast_id: cmd.broadcast_id, issue: `${invalid[0]!.path}: ${invalid[0]!.message}` })
    )
  }
  const ctx = { now, customFields }
  const state = recipient.state
  const stillMatches = invalid.length === 0 && state !== undefined && matches(audience.include, state, ctx) &&
    !audience.exclude.some((d) => matches(d, state, ctx))
  const zone = b.time_zone !== null && isTimeZone(b.time_zone) ? b.time_zone : "UTC"
  return decideBroadcast({
    status: b.status, sendDeadline: b.send_deadline, now, gate: skip, matches: stillMatches,
    category: gateCategory === "marketing" ? "marketing" : "utility", recentMarketing: recipient.recent, capHours,
    quietUntil: b.quiet_hours === null ? now.getTime() : quietHoursEnd(now.getTime(), b.quiet_hours, zone)
  })
})
