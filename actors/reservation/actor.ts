import { Clock, DateTime, Effect, Result } from "effect"
import { randomUUID } from "node:crypto"
import { deterministicId } from "../../core/deterministicId.ts"
import type { ReservationResult, SkippedResult } from "../../schemas/reservation.ts"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { consentClaims, linkContactsToHotels, recordConsents } from "../shared/contacts.ts"
import { type Claim, loadContactSummaries, resolveClaims } from "../shared/identity.ts"
import { attributionCandidates } from "./attribution.ts"
import { attributionChangedCommand } from "./attributionEvents.ts"
import { attributeReservations } from "./attributionRepository.ts"
import { attribute } from "./manualAttribution.ts"
import { stayEnvelopes, stayEventOf } from "./loyaltyStays.ts"
import { ReservationProtocol, type UpsertReservation } from "./protocol.ts"
import * as Repo from "./repository.ts"
import { bookingEventFor, isUnchangedResend, mergeReservation, type ReservationRow, guestEventFor } from "./state.ts"
import { DomainEvents } from "../../streams/topics.ts"

type Item = Actor.WaveItem<UpsertReservation>
type Answer = Actor.WaveResult<ReservationResult | SkippedResult, never>

const skipped = (cmd: UpsertReservation): Answer => ({
  result: Result.succeed({
    skipped: "no_guests_no_existing_reservation",
    external_reservation_id: cmd.external_id,
    message: "No guests were sent and no reservation with this reservation_id exists; nothing was stored",
    warnings: cmd.warnings
  }),
  outbox: []
})

/** One reservation of the wave after the pure merge, with its guests' claims' place in the wave's claim list. */
interface Planned {
  readonly item: Item
  readonly existing: ReservationRow | undefined
  readonly reservation: ReservationRow
  readonly firstClaim: number
}

/**
 * Upserts a wave of reservations (distinct reservation ids) set-based: load → pure merge → save, the guests of all
 * of them resolved to contacts together, then guests, hotel links, consents, booking events and the B2B attribution,
 * each one statement for the whole wave.
 */
const upsert = Effect.fn("ReservationActor.upsert")(function*(items: ReadonlyArray<Item>) {
  const { scope, subject, target } = yield* Effect.service(Actor.GroupTransaction)
  const stored = yield* Actor.query((tx) => Repo.findForUpdate(tx, scope, items.map((i) => i.payload.external_id)))

  const planned: Array<Planned> = []
  const claims: Array<Claim> = []
  for (const item of items) {
    const cmd = item.payload
    const existing = stored.get(cmd.external_id)
    if (cmd.guests.length === 0 && existing === undefined && (cmd.suppressed_guests ?? 0) === 0) continue
    const reservation = mergeReservation(existing, randomUUID(), cmd)
    planned.push({ item, existing, reservation, firstClaim: claims.length })
    for (const profile of cmd.guests) claims.push({ profile, source: `reservation:${reservation.source}`, envelopeId: item.envelopeId })
  }
  // Statements that do not depend on each other are sent together: postgres.js pipelines them on the transaction's
  // connection, so they cost one round trip instead of one each.
  const [, resolved] = yield* Actor.query((tx) => Promise.all([
    Repo.save(tx, scope, planned.map((p) => ({ external_id: p.item.payload.external_id, row: p.reservation })), target.namespace),
    resolveClaims(tx, scope, claims)
  ]))

  const now = (yield* DateTime.nowAsDate).toISOString()
  const written = planned.map((p) => {
    const cmd = p.item.payload
    const guestsResolved = resolved.slice(p.firstClaim, p.firstClaim + cmd.guests.length)
    const contactIds = guestsResolved.map((r) => r?.contact_id ?? null)
    const linked = contactIds.filter((id): id is string => id !== null)
    const holderIndex = Math.max(0, cmd.guests.findIndex((g) => g.is_holder))
    const eventType = bookingEventFor(p.existing?.status, p.reservation.status)
    const event = cmd.emit_event === false || isUnchangedResend(p.existing, p.reservation) ? undefined : {
      id: randomUUID(), type: eventType, contact_id: contactIds[holderIndex] ?? linked[0] ?? null,
      hotel_id: p.reservation.hotel_id, reservation_id: p.reservation.id, source: p.reservation.source,
      payload: {
        reservation_id: p.reservation.id, external_reservation_id: cmd.external_id, hotel_id: p.reservation.hotel_id,
        status: p.reservation.status, guest_stage: p.reservation.guest_stage, check_in: p.reservation.check_in,
        check_out: p.reservation.check_out, contact_ids: linked
      }
    }
    return { ...p, guestsResolved, contactIds, linked, event }
  })

  const [summaries, , , , , attributions] = yield* Actor.query((tx) => Promise.all([
    loadContactSummaries(tx, [...new Set(written.flatMap((w) => w.linked))]),
    Repo.replaceGuests(tx, scope, written.filter((w) => w.item.payload.guests.length > 0)
      .map((w) => ({ reservationId: w.reservation.id, guests: w.item.payload.guests, contactIds: w.contactIds }))),
    linkContactsToHotels(tx, scope, written.flatMap((w) => w.linked.map((contact_id) => ({ contact_id, hotel_id: w.reservation.hotel_id })))),
    recordConsents(tx, scope, written.flatMap((w) =>
      consentClaims(w.item.payload.guests, w.contactIds).map((c) => ({ ...c, source: `reservation:${w.reservation.source}`, envelope_id: w.item.envelopeId })))),
    Repo.insertEvents(tx, scope, written.flatMap((w) => (w.event ? [w.event] : []))),
    // Sent after the guests (replaceGuests sends its statements when called, and the connection keeps the order): a
    // domain suggestion reads the holder's stored email.
    attributeReservations(tx, scope, written.map((w) => ({
      reservation_id: w.reservation.id, candidates: attributionCandidates(w.reservation), reset: false
    })))
  ]))
  const attributionChanges = new Map(attributions.map((c) => [c.reservation_id, c]))
  // Loyalty: a stay checked out earns, a cancellation or no-show reverses (read after the guests were written).
  const stayChanges = written.flatMap((w) => {
    const event = stayEventOf(w.existing?.status, w.reservation.status)
    return event === undefined ? [] : [{ external_id: w.item.payload.external_id, row: w.reservation, event }]
  })
  const sentAt = yield* Clock.currentTimeMillis
  const stayMessages = stayChanges.length === 0 ? [] : yield* Actor.query((tx) => stayEnvelopes(tx, scope, stayChanges, target, sentAt))

  const attributionChangesOf = (id: string) => {
    const change = attributionChanges.get(id)
    return change === undefined ? [] : [change]
  }
  const answers = new Map<Item, Answer>(written.map((w) => {
    const cmd = w.item.payload
    const meta = { ...scope, occurred_at: now }
    const stay = w.event === undefined ? undefined : guestEventFor(w.existing?.status, w.reservation.status)
    const domainEvent = (id: string, type: string, e: NonNullable<typeof w.event>) =>
      DomainEvents.message(id, subject("evt", type), {
        ...meta, origin: "booking", event_id: id, event_type: type, contact_id: e.contact_id, hotel_id: e.hotel_id, source: e.source, data: e.payload
      })
    const outbox = [
      ...(w.event ? [domainEvent(w.event.id, w.event.type, w.event)] : []),
      ...(w.event && stay ? [domainEvent(deterministicId(`${stay}:${w.event.id}`), stay, w.event)] : []),
      ...contactChangeCommands(subject, meta, w.guestsResolved, summaries, w.reservation.hotel_id),
      ...attributionChangesOf(w.reservation.id).map((change) =>
        attributionChangedCommand(subject, meta, { id: w.reservation.id, external_id: cmd.external_id, row: w.reservation }, change)),
      ...stayMessages.filter((m) => m.external_id === cmd.external_id).map((m) => m.message)
    ]
    const result: ReservationResult = {
      reservation_id: w.reservation.id,
      external_reservation_id: cmd.external_id,
      is_new: w.existing === undefined,
      hotel_id: w.reservation.hotel_id,
      status: w.reservation.status,
      guest_stage: w.reservation.guest_stage,
      nights: w.reservation.nights,
      event_id: w.event?.id ?? null,
      event_type: w.event?.type ?? null,
      contacts: cmd.guests.map((g, i) => {
        const r = w.guestsResolved[i]
        const c = r ? summaries.get(r.contact_id) : undefined
        return r && c
          ? { contact_id: r.contact_id, phone: c.phone, email: c.email, is_new: r.is_new, is_holder: g.is_holder }
          : { contact_id: null, phone: null, email: null, is_new: false, is_holder: false }
      }),
      warnings: cmd.warnings
    }
    return [w.item, { result: Result.succeed(result), outbox }]
  }))
  return items.map((item) => answers.get(item) ?? skipped(item.payload))
})

export const ReservationActor = Actor.make(ReservationProtocol, { upsert: { wave: upsert }, attribute })
