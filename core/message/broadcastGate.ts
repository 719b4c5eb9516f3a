import type { SkipReason } from "./gate.ts"
import { DEFAULT_MARKETING_CAP_HOURS } from "../../schemas/broadcast.ts"

// What the message sender decides for one broadcast message at send time (issue 25 item 6), as pure rules over facts
// the sender has read (actors/message/broadcastSend.ts). The snapshot fixed who is targeted; whether each recipient
// still gets the message is decided here, once, when the message is recorded, and every "no" is a skip with a reason.

/** Why a broadcast message was not sent, as the message row records it. */
export type BroadcastSkipReason =
  | SkipReason
  | "cancelled"
  | "deadline_passed"
  | "no_longer_matches"
  | "frequency_cap"

export { DEFAULT_MARKETING_CAP_HOURS }

/** The tenant's cap in hours (`tenant_settings.marketing_cap_hours`): NULL is the default, 0 turns the cap off. */
export const capHoursOf = (configured: number | null | undefined): number =>
  configured === null || configured === undefined ? DEFAULT_MARKETING_CAP_HOURS : Math.max(0, configured)

/**
 * Where the cap's window starts for a send at `now`: marketing messages created from then on count against it.
 * Undefined when the cap is off.
 */
export const capWindowStart = (now: Date, capHours: number): Date | undefined =>
  capHours <= 0 ? undefined : new Date(now.getTime() - capHours * 3_600_000)

/** What the sender knows of one broadcast message when it decides. */
export interface BroadcastFacts {
  /** The broadcast's status; undefined when there is no such broadcast in the scope. */
  readonly status: string | undefined
  readonly sendDeadline: Date | null
  readonly now: Date
  /** The gate's answer for the contact, channel and the broadcast's category (core/message/gate.ts). */
  readonly gate: SkipReason | null
  /** Whether the contact still matches the broadcast's definition and none of its exclusions. */
  readonly matches: boolean
  readonly category: "marketing" | "utility"
  /** Marketing messages to the contact on the channel inside the cap's window (the one being decided excluded). */
  readonly recentMarketing: number
  readonly capHours: number
  /** When quiet hours let it leave, ms (`now` when outside the window): core/message/quietHours.ts `quietHoursEnd`. */
  readonly quietUntil: number
}

export type BroadcastDecision =
  | { readonly send: false; readonly reason: BroadcastSkipReason }
  /** Recorded as queued; `notBefore` is set when quiet hours hold it until their end. */
  | { readonly send: true; readonly notBefore: Date | null }

/**
 * The decision, in a fixed order: the broadcast itself (cancelled, past its deadline), then whether the guest may
 * receive it at all (address, suppression, consent), then whether the guest is still in the audience, then the
 * marketing frequency cap, then quiet hours (which hold, unless the hold would end past the deadline). The first rule that says no names the reason, so
 * a cancelled broadcast's recipient reads `cancelled` even if the guest also opted out meanwhile.
 */
export const decideBroadcast = (f: BroadcastFacts): BroadcastDecision => {
  if (f.status === undefined || f.status === "cancelled") return { send: false, reason: "cancelled" }
  if (f.sendDeadline !== null && f.now.getTime() > f.sendDeadline.getTime()) return { send: false, reason: "deadline_passed" }
  if (f.gate !== null) return { send: false, reason: f.gate }
  if (!f.matches) return { send: false, reason: "no_longer_matches" }
  if (f.category === "marketing" && f.capHours > 0 && f.recentMarketing > 0) return { send: false, reason: "frequency_cap" }
  const until = f.quietUntil
  if (until <= f.now.getTime()) return { send: true, notBefore: null }
  // Held past the deadline, it would leave later than the broadcast allows: the deadline wins.
  if (f.sendDeadline !== null && until > f.sendDeadline.getTime()) return { send: false, reason: "deadline_passed" }
  return { send: true, notBefore: new Date(until) }
}

const BROADCAST_SKIP_REASONS: ReadonlySet<string> = new Set<BroadcastSkipReason>([
  "subject_suppressed", "no_email", "no_phone", "suppressed", "opted_out", "no_email_marketing_consent", "no_whatsapp_marketing_consent",
  "cancelled", "deadline_passed", "no_longer_matches", "frequency_cap"
])

/** Whether a stored `messages.skip_reason` is one the sender gives a broadcast message (a read model's check). */
export const isBroadcastSkipReason = (s: string): s is BroadcastSkipReason => BROADCAST_SKIP_REASONS.has(s)

/** A broadcast recipient's skip reasons (issue 25, fixed interface). */
export type RecipientSkipReason =
  | "no_consent"
  | "suppressed"
  | "no_email"
  | "no_phone"
  | "no_longer_matches"
  | "frequency_cap"
  | "deadline_passed"
  | "cancelled"

/**
 * The reason a broadcast's recipient view shows for its message's skip: the gate's three consent reasons (an opt-out
 * and a missing consent per channel) are one `no_consent` there, a privacy suppression is `suppressed` (the view's
 * reasons are issue 25's fixed list); every other reason reads the same.
 */
export const recipientSkipReason = (messageSkipReason: BroadcastSkipReason): RecipientSkipReason => {
  switch (messageSkipReason) {
    case "subject_suppressed":
      return "suppressed"
    case "opted_out":
    case "no_email_marketing_consent":
    case "no_whatsapp_marketing_consent":
      return "no_consent"
    default:
      return messageSkipReason
  }
}
