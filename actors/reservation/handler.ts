import { randomUUID } from "node:crypto"
import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Envelope } from "../../streams/envelope.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import { defineActor, type ActorContext, type Applied, type OutboxMessage } from "../runtime/types.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { linkContactsToHotel, recordConsents } from "../shared/contacts.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import type { UpsertReservation } from "./command.ts"
import * as Repo from "./repository.ts"
import { bookingEventFor, mergeReservation } from "./state.ts"

const upsert = async (tx: Tx, envelope: Envelope<UpsertReservation>, ctx: ActorContext): Promise<Applied> => {
  const cmd = envelope.payload
  const scope: TenantScope = { tenant_id: envelope.tenant_id, sandbox: envelope.sandbox }
  const existing = await Repo.findForUpdate(tx, scope, cmd.external_id)

  if (cmd.guests.length === 0 && existing === undefined) {
    return {
      reply: {
        status: 200,
        body: {
          success: true,
          data: {
            skipped: "no_guests_no_existing_reservation",
            external_reservation_id: cmd.external_id,
            message: "No guests were sent and no reservation with this reservation_id exists; nothing was stored",
            warnings: cmd.warnings
          }
        }
      },
      outbox: []
    }
  }

  const reservation = mergeReservation(existing, randomUUID(), cmd)
  // Statements that do not depend on each other are sent together: postgres.js pipelines them on the transaction's
  // connection, so they cost one round trip instead of one each.
  const [, resolved] = await Promise.all([
    Repo.save(tx, scope, cmd.external_id, reservation),
    resolveContacts(tx, scope, cmd.guests, { source: `reservation:${reservation.source}`, envelopeId: envelope.id })
  ])
  const contactIds = resolved.map((r) => r?.contact_id ?? null)
  const linked = contactIds.filter((id): id is string => id !== null)
  const consents = cmd.guests.flatMap((g, i) => {
    const contact_id = contactIds[i]
    if (!contact_id) return []
    return [
      ...(g.email_consent === undefined ? [] : [{ contact_id, channel: "email" as const, granted: g.email_consent }]),
      ...(g.whatsapp_marketing_consent === undefined ? [] : [{ contact_id, channel: "whatsapp" as const, granted: g.whatsapp_marketing_consent }])
    ]
  })

  const holderIndex = Math.max(0, cmd.guests.findIndex((g) => g.is_holder))
  const primaryContact = contactIds[holderIndex] ?? linked[0] ?? null
  const emit = cmd.emit_event !== false
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
  const [summaries] = await Promise.all([
    loadContactSummaries(tx, linked),
    cmd.guests.length > 0 ? Repo.replaceGuests(tx, scope, reservation.id, cmd.guests, contactIds) : undefined,
    linkContactsToHotel(tx, scope, reservation.hotel_id, linked),
    recordConsents(tx, scope, envelope.id, `reservation:${reservation.source}`, consents),
    emit
      ? Repo.insertEvent(tx, scope, {
        id: eventId, type: eventType, contact_id: primaryContact, hotel_id: reservation.hotel_id,
        reservation_id: reservation.id, source: reservation.source, payload: eventPayload
      })
      : undefined
  ])
  const meta = { tenant_id: scope.tenant_id, sandbox: scope.sandbox, occurred_at: new Date().toISOString() }
  const outbox: Array<OutboxMessage> = emit
    ? [{
      id: eventId,
      subject: outboxSubject(ctx.namespace, "evt", eventType),
      payload: { ...meta, event_id: eventId, event_type: eventType, contact_id: primaryContact, data: eventPayload }
    }]
    : []
  outbox.push(...contactChangeCommands(ctx.namespace, meta, resolved, summaries, reservation.hotel_id))

  return {
    reply: {
      status: existing ? 200 : 201,
      body: {
        success: true,
        data: {
          reservation_id: reservation.id,
          external_reservation_id: cmd.external_id,
          is_new: existing === undefined,
          hotel_id: reservation.hotel_id,
          status: reservation.status,
          guest_stage: reservation.guest_stage,
          nights: reservation.nights,
          event_id: emit ? eventId : null,
          event_type: emit ? eventType : null,
          contacts: cmd.guests.map((g, i) => {
            const r = resolved[i]
            const c = r ? summaries.get(r.contact_id) : undefined
            return r && c
              ? { contact_id: r.contact_id, phone: c.phone, email: c.email, is_new: r.is_new, is_holder: g.is_holder }
              : { contact_id: null, phone: null, email: null, is_new: false, is_holder: false }
          }),
          warnings: cmd.warnings
        }
      }
    },
    outbox
  }
}

export const ReservationActor = defineActor("reservation", { "reservation.upsert": upsert })
