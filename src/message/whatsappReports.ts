import type { InboundReport, StatusReport } from "../../actors/message/protocol.ts"
import { normalisePhone } from "../../core/normalise/index.ts"
import type { WhatsAppEnvelope } from "../../schemas/whatsappWebhook.ts"

export interface Reports {
  /** Every phone number id the envelope names: each must be configured, and each one's app secret must verify it. */
  readonly phoneNumberIds: ReadonlyArray<string>
  /** Per phone number id, what it reports (statuses of our sends, guests' messages), in the envelope's order. */
  readonly items: ReadonlyArray<{ readonly phoneNumberId: string; readonly report: StatusReport | InboundReport }>
  /** Items left out, with why (a number that is not a valid international number, a status we do not track). */
  readonly ignored: ReadonlyArray<string>
}

/** A guest's text is kept, cleaned: NUL dropped and unpaired surrogates replaced (U+FFFD), since PostgreSQL cannot store them. */
const clean = (s: string | undefined) => (s === undefined ? undefined : s.replace(/\u0000/g, "").toWellFormed())

const iso = (unixSeconds: string) => new Date(Number(unixSeconds) * 1000).toISOString()
const e164 = (digits: string) => {
  const p = normalisePhone(`+${digits}`)
  return p.ok ? p.e164 : undefined
}

/** The text a guest wrote: a text message's body, or the label of a quick-reply button they pressed. */
const textOf = (m: WhatsAppEnvelope["entry"][number]["changes"][number]["value"]["messages"] & {}) => (i: number) =>
  m[i]!.text?.body ?? m[i]!.button?.text

/** What a WhatsApp webhook reports, as the message actor's commands (pure: no I/O). */
export const reportsOf = (envelope: WhatsAppEnvelope): Reports => {
  const ids = new Set<string>()
  const items: Array<Reports["items"][number]> = []
  const ignored: Array<string> = []
  for (const entry of envelope.entry) {
    for (const change of entry.changes) {
      if (change.field !== "messages") continue
      const v = change.value
      const phoneNumberId = v.metadata?.phone_number_id
      if (phoneNumberId === undefined) {
        if ((v.statuses?.length ?? 0) + (v.messages?.length ?? 0) > 0) ignored.push("a change without metadata.phone_number_id")
        continue
      }
      ids.add(phoneNumberId)
      for (const s of v.statuses ?? []) {
        const phone = e164(s.recipient_id)
        if (phone === undefined || s.status === "deleted" || s.status === "warning") {
          ignored.push(`status ${s.status} of ${s.id}`)
          continue
        }
        const error = s.errors?.[0]
        items.push({
          phoneNumberId,
          report: {
            kind: "status", phone, provider_message_id: s.id, callback_data: s.biz_opaque_callback_data, status: s.status,
            occurred_at: iso(s.timestamp),
            ...(error === undefined ? {} : { error_code: String(error.code), error_message: error.error_data?.details ?? error.message ?? error.title })
          }
        })
      }
      const messages = v.messages ?? []
      const text = textOf(messages)
      messages.forEach((m, i) => {
        const phone = e164(m.from)
        if (phone === undefined) {
          ignored.push(`message ${m.id} from an invalid number`)
          return
        }
        const profile = clean(v.contacts?.find((c) => c.wa_id === m.from)?.profile?.name)
        const body = clean(text(i))
        items.push({
          phoneNumberId,
          report: {
            kind: "inbound", phone, provider_message_id: m.id, occurred_at: iso(m.timestamp), type: m.type,
            ...(body === undefined ? {} : { text: body }),
            ...(profile === undefined ? {} : { profile_name: profile })
          }
        })
      })
    }
  }
  return { phoneNumberIds: [...ids], items, ignored }
}
