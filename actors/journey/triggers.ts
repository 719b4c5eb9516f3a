import { parseDuration } from "../../core/journey/duration.ts"
import type { JourneyDefinition, JourneyTrigger } from "../../schemas/journey.ts"
import type { JourneySignal } from "./protocol.ts"
import type { Run } from "./run.ts"

// The pure rules of entering and leaving journeys on a signal: which journeys a signal starts, for which scope, what
// re-entry allows, and which live runs it stops.

/** Events about the booking or the stay itself: a journey they start is about that stay, so a booking does not stop it. */
const STAY_EVENTS = ["booking.created", "booking.updated", "booking.cancelled", "guest.checked_in", "guest.checked_out"]

export const stopOnBookingOf = (t: JourneyTrigger): boolean =>
  t.stop_on_booking ?? (t.type === "event" && !STAY_EVENTS.includes(t.event))

export const stopWhenOf = (t: JourneyTrigger): ReadonlyArray<string> =>
  t.type === "event" ? t.stop_when ?? ["checkout.completed"] : []

const contextOf = (payload: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const c = payload["context"]
  return typeof c === "object" && c !== null && !Array.isArray(c) ? (c as Record<string, unknown>) : {}
}
const textAt = (o: Readonly<Record<string, unknown>>, k: string): string | undefined => {
  const v = o[k]
  return typeof v === "string" && v !== "" ? v : undefined
}
export const cartOf = (payload: Readonly<Record<string, unknown>>) => textAt(contextOf(payload), "cart_id")
export const sessionOf = (payload: Readonly<Record<string, unknown>>) => textAt(contextOf(payload), "session_id")

/**
 * What "the same run" means for a signal: a website visit's cart, else its session; a booking's or a date trigger's
 * reservation; otherwise the contact. One run per journey and scope is live at a time, and re-entry counts per scope.
 */
export const scopeOf = (s: JourneySignal): string => {
  const cart = cartOf(s.payload)
  if ((s.origin === "website" || s.origin === "core") && cart !== undefined) return `cart:${cart}`
  const session = sessionOf(s.payload)
  if (s.origin === "website" && session !== undefined) return `session:${session}`
  if (s.reservation_id !== null) return `reservation:${s.reservation_id}`
  return "contact"
}

export interface CandidateJourney {
  readonly id: string
  readonly version: number
  readonly hotel_ids: ReadonlyArray<string>
  readonly definition: JourneyDefinition
}

/** Whether a signal is one a journey's trigger starts on (its event, sources, stages and hotels). */
export const triggerMatches = (j: CandidateJourney, s: JourneySignal): boolean => {
  if (!s.starts) return false
  if (j.hotel_ids.length > 0 && (s.hotel_id === null || !j.hotel_ids.includes(s.hotel_id))) return false
  const t = j.definition.trigger
  if (t.type === "reservation_date") return s.origin === "date" && s.journey_id === j.id
  if (s.origin === "date" || t.event !== s.event_name) return false
  if (t.sources !== undefined && t.sources.length > 0 && (s.source === null || !t.sources.includes(s.source))) return false
  if (t.stages !== undefined && t.stages.length > 0) {
    const stage = textAt(contextOf(s.payload), "stage")
    if (stage === undefined || !(t.stages as ReadonlyArray<string>).includes(stage)) return false
  }
  return true
}

/**
 * Whether a contact may enter a journey's scope again, given the last run of that scope (if any): `never` once,
 * `always` whenever none is live, `{after}` once that long has passed since the last entry. A live run always
 * refuses (the run already going on keeps its starting event).
 */
export const entryRefusal = (t: JourneyTrigger, live: boolean, lastStartedAt: number | undefined, now: number): string | null => {
  if (live) return "already_in_journey"
  if (lastStartedAt === undefined) return null
  const reentry = t.reentry ?? "never"
  if (reentry === "always") return null
  if (reentry === "never") return "already_entered"
  return now - lastStartedAt < parseDuration(reentry.after)!.ms ? "reentry_cooldown" : null
}

/** A booking as stop rules see it: a real reservation (not cancelled or no-show), made at some hotel at some time. */
export interface BookingFacts {
  readonly reservation_id: string
  readonly status: string
  readonly hotel_id: string
  readonly created_at: number
}

/**
 * Why a signal ends a live run, if it does: a `stop_when` event for the run's cart (else its session, else the
 * contact), or a real reservation made after the run started, at the run's hotel when it has one (stop_on_booking).
 */
export const stopReason = (run: Run, trigger: JourneyTrigger, s: JourneySignal, booking: BookingFacts | null): string | null => {
  if (stopWhenOf(trigger).includes(s.event_name)) {
    const cart = cartOf(run.trigger.payload)
    const session = sessionOf(run.trigger.payload)
    const same = cart !== undefined ? cartOf(s.payload) === cart : session !== undefined ? sessionOf(s.payload) === session : true
    if (same) return "stop_event"
  }
  if (booking !== null && stopOnBookingOf(trigger) && !["cancelled", "no_show"].includes(booking.status) &&
    booking.created_at > run.started_at && booking.reservation_id !== run.reservation_id &&
    (run.hotel_id === null || run.hotel_id === booking.hotel_id)) return "booked"
  return null
}
