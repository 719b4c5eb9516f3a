import type { TimelineItem } from "../../schemas/timeline.ts"
import { sqlLiteral } from "../../core/db/sqlLiteral.ts"

// The `summary` line of each timeline kind, as SQL over the item's `data` (a json value): made from the item's own
// data, never from a message body, an address or a name (the contact's personal data stays in the profile; a summary
// may be shown in lists and logs of a console). Written in SQL because PostgreSQL writes the whole page (ADR 0038).

/** A data field as text, "" when absent or null. */
const f = (d: string, key: string) => `coalesce(${d}->>'${key}', '')`
/** A data field holding a non-empty text (JavaScript's truthiness of a string). */
const given = (d: string, key: string) => `${f(d, key)} <> ''`
const when = (condition: string, text: string) => `CASE WHEN ${condition} THEN ${text} ELSE '' END`
const cat = (...parts: ReadonlyArray<string>) => `(${parts.join(" || ")})`
const lit = sqlLiteral
/** A text field through a table of words, the field itself when the table has none. */
const mapped = (d: string, key: string, words: Readonly<Record<string, string>>) =>
  `CASE ${d}->>'${key}' ${Object.entries(words).map(([k, v]) => `WHEN ${lit(k)} THEN ${lit(v)}`).join(" ")} ELSE ${f(d, key)} END`

const CHANNEL = { email: "Email", whatsapp: "WhatsApp" }
const BOOKING = {
  "booking.created": "created", "booking.updated": "updated", "booking.cancelled": "cancelled",
  "guest.checked_in": "checked in", "guest.checked_out": "checked out"
}

const SUMMARIES: { readonly [K in TimelineItem["kind"]]: (d: string) => string } = {
  reservation: (d) =>
    cat(lit("Reservation "), f(d, "external_reservation_id"), lit(" "), mapped(d, "event_type", BOOKING), lit(" ("), f(d, "status"), lit(", "),
      f(d, "check_in"), lit(" to "), f(d, "check_out"), lit(")")),
  event: (d) => cat(lit("Event "), f(d, "type"), when(given(d, "source"), cat(lit(" from "), f(d, "source")))),
  website_event: (d) => cat(lit("Website event "), f(d, "event")),
  cdp_event: (d) => cat(lit("Browser "), f(d, "type"), when(given(d, "url"), cat(lit(" on "), f(d, "url")))),
  message: (d) =>
    cat(mapped(d, "channel", CHANNEL), lit(" "), when(given(d, "category"), cat(f(d, "category"), lit(" "))), lit("message "), f(d, "status"),
      when(given(d, "skip_reason"), cat(lit(": "), f(d, "skip_reason")))),
  inbound_message: (d) => cat(mapped(d, "channel", CHANNEL), lit(" message received")),
  journey_entered: (d) => cat(lit("Entered journey "), f(d, "journey_name")),
  journey_step: (d) =>
    cat(lit("Journey "), f(d, "journey_name"), lit(": "), f(d, "step_type"), lit(" step "), f(d, "step_id"), lit(" "), f(d, "outcome"),
      when(given(d, "reason"), cat(lit(" ("), f(d, "reason"), lit(")")))),
  journey_ended: (d) => cat(lit("Journey "), f(d, "journey_name"), lit(" "), f(d, "state"), when(given(d, "reason"), cat(lit(": "), f(d, "reason")))),
  call: (d) =>
    cat(`CASE WHEN ${given(d, "direction")} THEN upper(left(${d}->>'direction', 1)) || substr(${d}->>'direction', 2) || ' call' ELSE 'Call' END`,
      lit(" "), f(d, "status"), when(`json_typeof(${d}->'duration_seconds') = 'number'`, cat(lit(", "), f(d, "duration_seconds"), lit(" s")))),
  loyalty_movement: (d) =>
    cat(when(`(${d}->>'points')::numeric > 0`, lit("+")), f(d, "points"), lit(" points ("), f(d, "movement"), lit("), balance "),
      f(d, "balance_after")),
  consent_change: (d) =>
    cat(mapped(d, "channel", CHANNEL), lit(" marketing consent "), `CASE WHEN (${d}->>'granted')::boolean THEN 'granted' ELSE 'withdrawn' END`,
      lit(" ("), f(d, "source"), lit(")")),
  webhook: (d) => cat(lit("Webhook "), f(d, "event_type"), lit(" emitted"))
}

/** The SQL of an item's summary, from SQL expressions of its kind and its data. */
export const summarySql = (kind: string, data: string) =>
  `CASE ${kind} ${Object.entries(SUMMARIES).map(([k, summary]) => `WHEN ${lit(k)} THEN ${summary(data)}`).join("\n  ")} END`
