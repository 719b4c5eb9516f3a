export { addressOf, gate, type Recipient, type SkipReason } from "../../core/message/gate.ts"

// The pure rules of messaging: how reported statuses order, and what a guest's reply means. Who may be sent what (the
// gate) lives in core/message/gate.ts, since the segment language's `reachable` node must apply the same rule.

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
