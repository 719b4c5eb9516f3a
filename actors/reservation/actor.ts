import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { ReservationResult, SkippedResult } from "../../schemas/reservation.ts"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { consentClaims, linkContactsToHotel, recordConsents } from "../shared/contacts.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import { ReservationProtocol, type UpsertReservation } from "./protocol.ts"
import * as Repo from "./repository.ts"
import { bookingEventFor, mergeReservation } from "./state.ts"

const skipped = (cmd: UpsertReservation): SkippedResult => ({
  skipped: "no_guests_no_existing_reservation",
  external_reservation_id: cmd.external_id,
  message: "No guests were sent and no reservation with this reservation_id exists; nothing was stored",
  warnings: cmd.warnings
})

/** Load → pure merge → save, with the guests resolved to contacts, consents, hotel links and the booking event. */
const upsert = Effect.fn("ReservationActor.upsert")(function*(cmd: UpsertReservation) {
  const { scope, envelopeId, subject } = yield* Effect.service(Actor.ActorTransaction)
  const existing = yield* Actor.query((tx) => Repo.findForUpdate(tx, scope, cmd.external_id))
  if (cmd.guests.length === 0 && existing === undefined) return skipped(cmd)

  const reservation = mergeReservation(existing, randomUUID(), cmd)
  const source = `reservation:${reservation.source}`
  // Statements that do not depend on each other are sent together: postgres.js pipelines them on the transaction's
  // connection, so they cost one round trip instead of one each.
  const [, resolved] = yield* Actor.query((tx) => Promise.all([
    Repo.save(tx, scope, cmd.external_id, reservation),
    resolveContacts(tx, scope, cmd.guests, { source, envelopeId })
  ]))
  const contactIds = resolved.map((r) => r?.contact_id ?? null)
  const linked = contactIds.filter((id): id is string => id !== null)
  const holderIndex = Math.max(0, cmd.guests.findIndex((g) => g.is_holder))
  const primaryContact = contactIds[holderIndex] ?? linked[0] ?? null
  const emitEvent = cmd.emit_event !== false
  const eventType = bookingEventFor(existing?.status, reservation.status)
  const eventId = randomUUID()
  const eventPayload = {
    reservation_id: reservation.id,
    external_reservation_id: cmd.external_id,
    hotel_id: reservation.hotel_id,
    status: reservation.status,
    guest_stage: reservation.guest_stage,
    check_in: reservation.check_in,
    check_out: reservation.check_out,
    contact_ids: linked
  }
  const [summaries] = yield* Actor.query((tx) => Promise.all([
    loadContactSummaries(tx, linked),
    cmd.guests.length > 0 ? Repo.replaceGuests(tx, scope, reservation.id, cmd.guests, contactIds) : undefined,
    linkContactsToHotel(tx, scope, reservation.hotel_id, linked),
    recordConsents(tx, scope, envelopeId, source, consentClaims(cmd.guests, contactIds)),
    emitEvent
      ? Repo.insertEvent(tx, scope, {
        id: eventId, type: eventType, contact_id: primaryContact, hotel_id: reservation.hotel_id,
        reservation_id: reservation.id, source: reservation.source, payload: eventPayload
      })
      : undefined
  ]))
  const meta = { ...scope, occurred_at: new Date().toISOString() }
  if (emitEvent) {
    yield* Actor.emit([{
      id: eventId,
      subject: subject("evt", eventType),
      payload: { ...meta, event_id: eventId, event_type: eventType, contact_id: primaryContact, data: eventPayload }
    }])
  }
  yield* Actor.emit(contactChangeCommands(subject, meta, resolved, summaries, reservation.hotel_id))

  return {
    reservation_id: reservation.id,
    external_reservation_id: cmd.external_id,
    is_new: existing === undefined,
    hotel_id: reservation.hotel_id,
    status: reservation.status,
    guest_stage: reservation.guest_stage,
    nights: reservation.nights,
    event_id: emitEvent ? eventId : null,
    event_type: emitEvent ? eventType : null,
    contacts: cmd.guests.map((g, i) => {
      const r = resolved[i]
      const c = r ? summaries.get(r.contact_id) : undefined
      return r && c
        ? { contact_id: r.contact_id, phone: c.phone, email: c.email, is_new: r.is_new, is_holder: g.is_holder }
        : { contact_id: null, phone: null, email: null, is_new: false, is_holder: false }
    }),
    warnings: cmd.warnings
  } satisfies ReservationResult
})

export const ReservationActor = Actor.make(ReservationProtocol, { upsert })
