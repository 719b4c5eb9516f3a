import type { MessageCategory, MessageChannel } from "../../schemas/message.ts"

// The pure rules of messaging: who may be sent what, how reported statuses order, and what a guest's reply means.

export type SkipReason =
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

export type ReportedStatus = "sent" | "delivered" | "read" | "failed"

const RANK: Readonly<Record<string, number>> = { queued: 0, sent: 1, delivered: 2, read: 3 }

/**
 * Whether a reported status moves a message on. Statuses never move backwards (a late `delivered` after `read`
 * changes nothing); `failed` replaces only `queued` or `sent` (a message the guest received did not fail); final
 * states (skipped, failed, received) never change.
 */
export const advances = (current: string, reported: ReportedStatus): boolean => {
  const from = RANK[current]
  if (from === undefined) return false
  if (reported === "failed") return from <= 1
  return RANK[reported]! > from
}

/**
 * Opt-out keywords a guest may answer with, in the languages of the hotels' guests. Matched on the whole message,
 * case, accents and surrounding punctuation ignored, so "Stop." and "baja" count and "don't stop" does not.
 */
const STOP_WORDS = new Set([
  "STOP", "STOPALL", "STOP ALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPT OUT", "OPTOUT",
  "BAJA", "DAR DE BAJA", "DARME DE BAJA", "PARAR", "ALTO", "CANCELAR", "NO MAS", "NO MOLESTAR",
  "ARRET", "ARRETER", "DESABONNER", "DESINSCRIRE",
  "STOPP", "ABMELDEN", "ABBESTELLEN",
  "DISISCRIVI", "ANNULLA", "BASTA",
  "SAIR", "PARE", "DESCADASTRAR",
  "AFMELDEN", "UITSCHRIJVEN"
])

export const normaliseKeyword = (text: string): string =>
  text.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase().replace(/[^\p{L}\p{N} ]+/gu, " ").replace(/\s+/g, " ").trim()

export const isStopKeyword = (text: string | undefined): boolean => text !== undefined && STOP_WORDS.has(normaliseKeyword(text))

/** The WhatsApp customer-service window: free-form messages are allowed for 24 h after the guest's last message. */
export const SERVICE_WINDOW_MS = 24 * 3600 * 1000

export const serviceWindowOpen = (lastInboundAt: Date | null, now: Date): boolean =>
  lastInboundAt !== null && now.getTime() - lastInboundAt.getTime() < SERVICE_WINDOW_MS
