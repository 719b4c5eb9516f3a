import type { DomainEvent } from "../../streams/topics.ts"
import type { JourneySignal } from "./protocol.ts"

/** A domain event as the outbox carries it (`evt.<type>`): what every family emits when something happens. */
export type { DomainEvent }

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null)

/**
 * The journey signals of a domain event, one per contact it concerns. A booking concerns its holder (who may start
 * journeys) and its companions (whose runs it may stop: a booking made for them counts); any other event its contact.
 * An event without a contact starts and stops nothing.
 */
export const signalsOf = (e: DomainEvent): ReadonlyArray<JourneySignal> => {
  const booking = e.origin === "booking"
  // Free-form payloads (a core event's `payload`) may be anything an object can be; a missing one is empty.
  const data: Readonly<Record<string, unknown>> = typeof e.data === "object" && e.data !== null ? e.data : {}
  const base = {
    event_id: e.event_id, event_name: e.event_type, occurred_at: e.occurred_at, payload: data,
    origin: booking ? "booking" as const : e.origin === "website" ? "website" as const : "core" as const,
    source: text(e.source), hotel_id: text(e.hotel_id) ?? (booking ? text(data["hotel_id"]) : null),
    reservation_id: booking ? text(data["reservation_id"]) : null
  }
  const companions = booking && Array.isArray(data["contact_ids"]) ? (data["contact_ids"] as Array<unknown>).map(text) : []
  const contacts = new Map<string, boolean>()
  if (e.contact_id !== null) contacts.set(e.contact_id, true)
  for (const c of companions) if (c !== null && !contacts.has(c)) contacts.set(c, false)
  return [...contacts].map(([contact_id, starts]) => ({ ...base, contact_id, starts }))
}
