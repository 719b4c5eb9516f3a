import type { MessageCategory, MessageChannel } from "../../schemas/message.ts"

// Who may be sent what: the one rule the message sender applies at send time and the segment language's `reachable`
// node (core/segment) states again in SQL; test/core/segment's differential test holds the two together.

export type SkipReason =
  /**
   * A privacy request suppressed the contact (issue 26). Decided before the gate by the sender, the one part that can
   * hash the contact's identifiers with the privacy key; it wins over every other reason.
   */
  | "subject_suppressed"
  | "no_email"
  | "no_phone"
  | "suppressed"
  | "opted_out"
  | "no_email_marketing_consent"
  | "no_whatsapp_marketing_consent"

export interface Recipient {
  readonly email: string | null
  readonly phone: string | null
  readonly email_consent: boolean | null
  readonly whatsapp_marketing_consent: boolean | null
  readonly email_opted_out_at: string | Date | null
  readonly whatsapp_opted_out_at: string | Date | null
}

/** The address a channel sends to, if the contact has one. */
export const addressOf = (r: Recipient, channel: MessageChannel): string | null => (channel === "email" ? r.email : r.phone)

/**
 * Whether a message may leave, and if not why (recorded as a skip, never an error). Every category needs an address
 * that is not suppressed; marketing also needs the channel's consent and no opt-out. Utility, authentication and
 * service messages are always sent otherwise: an opt-out withdraws marketing, not the stay's practical messages.
 */
export const gate = (r: Recipient, channel: MessageChannel, category: MessageCategory, suppressed: boolean): SkipReason | null => {
  if (addressOf(r, channel) === null) return channel === "email" ? "no_email" : "no_phone"
  if (suppressed) return "suppressed"
  if (category !== "marketing") return null
  const optedOut = channel === "email" ? r.email_opted_out_at : r.whatsapp_opted_out_at
  if (optedOut !== null) return "opted_out"
  const consent = channel === "email" ? r.email_consent : r.whatsapp_marketing_consent
  return consent === true ? null : channel === "email" ? "no_email_marketing_consent" : "no_whatsapp_marketing_consent"
}
