import type { TimelineItem } from "../../schemas/timeline.ts"

// The `summary` line of each timeline kind: made from the item's own data, never from a message body, an address or a
// name (the contact's personal data stays in the profile; a summary may be shown in lists and logs of a console).

type Data = Record<string, unknown>
const s = (v: unknown) => (v === null || v === undefined ? "" : String(v))
const CHANNEL: Record<string, string> = { email: "Email", whatsapp: "WhatsApp" }
const channel = (v: unknown) => CHANNEL[s(v)] ?? s(v)
const BOOKING: Record<string, string> = {
  "booking.created": "created", "booking.updated": "updated", "booking.cancelled": "cancelled",
  "guest.checked_in": "checked in", "guest.checked_out": "checked out"
}

const SUMMARIES: { readonly [K in TimelineItem["kind"]]: (d: Data) => string } = {
  reservation: (d) => `Reservation ${s(d.external_reservation_id)} ${BOOKING[s(d.event_type)] ?? s(d.event_type)} (${s(d.status)}, ${s(d.check_in)} to ${s(d.check_out)})`,
  event: (d) => `Event ${s(d.type)}${d.source ? ` from ${s(d.source)}` : ""}`,
  website_event: (d) => `Website event ${s(d.event)}`,
  cdp_event: (d) => `Browser ${s(d.type)}${d.url ? ` on ${s(d.url)}` : ""}`,
  message: (d) =>
    `${channel(d.channel)} ${d.category ? `${s(d.category)} ` : ""}message ${s(d.status)}${d.skip_reason ? `: ${s(d.skip_reason)}` : ""}`,
  inbound_message: (d) => `${channel(d.channel)} message received`,
  journey_entered: (d) => `Entered journey ${s(d.journey_name)}`,
  journey_step: (d) => `Journey ${s(d.journey_name)}: ${s(d.step_type)} step ${s(d.step_id)} ${s(d.outcome)}${d.reason ? ` (${s(d.reason)})` : ""}`,
  journey_ended: (d) => `Journey ${s(d.journey_name)} ${s(d.state)}${d.reason ? `: ${s(d.reason)}` : ""}`,
  call: (d) => `${d.direction ? `${s(d.direction)[0]!.toUpperCase()}${s(d.direction).slice(1)} call` : "Call"} ${s(d.status)}` +
    (typeof d.duration_seconds === "number" ? `, ${d.duration_seconds} s` : ""),
  loyalty_movement: (d) => `${Number(d.points) > 0 ? "+" : ""}${s(d.points)} points (${s(d.movement)}), balance ${s(d.balance_after)}`,
  consent_change: (d) => `${channel(d.channel)} marketing consent ${d.granted ? "granted" : "withdrawn"} (${s(d.source)})`,
  webhook: (d) => `Webhook ${s(d.event_type)} emitted`
}

export const summaryOf = (kind: TimelineItem["kind"], data: Data): string => SUMMARIES[kind](data)
