import type { PrivacyStore } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

// Core events: what a partner said about a contact (`events` without a reservation) is the contact's and goes; the
// booking events the reservation actor records (with a reservation_id) are the reservation's facts and stay, without
// the person: no contact link, no contact id among the reservation's `contact_ids`.

export const eventsStore: PrivacyStore = {
  store: "events",
  action: "deleted",
  tables: ["events"],
  holds: "core events sent about the contact, with their partner payload",
  retention: "kept (no expiry): removed by an erasure",
  erase: (tx, subject, limit) => inSteps(limit, [
    (b) => counted(tx`DELETE FROM events WHERE id IN (
      SELECT id FROM events WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
        AND contact_id = ANY(${subject.contactIds as Array<string>}::uuid[]) AND reservation_id IS NULL LIMIT ${b})`)
  ]),
  export: async (tx, subject) => tagged("events", await tx`
    SELECT to_jsonb(e) - ${[...INTERNAL, "reservation_id"]}::text[] AS row FROM events e
    WHERE e.tenant_id = ${subject.scope.tenant_id} AND e.sandbox = ${subject.scope.sandbox}
      AND e.contact_id = ANY(${subject.contactIds as Array<string>}::uuid[]) AND e.reservation_id IS NULL
    ORDER BY e.created_at, e.id`)
}

export const bookingEventsStore: PrivacyStore = {
  store: "booking_events",
  action: "anonymised",
  tables: ["events"],
  holds: "booking and stay events of reservations: the holder's contact link and every linked guest's contact id",
  retention: "kept (hotel statistics): an erasure unlinks the subject and drops its contact id from the reservation's",
  erase: (tx, subject, limit) => {
    const n = needlesOf(subject)
    const { tenant_id: t, sandbox: s } = subject.scope
    const ids = n.contactIds
    return inSteps(limit, [
      // The subject's own booking events (it is the holder).
      (b) => counted(tx`
        UPDATE events SET contact_id = NULL,
          payload = CASE WHEN payload ? 'contact_ids' THEN jsonb_set(payload, '{contact_ids}', (payload->'contact_ids') - ${ids}::text[]) ELSE payload END
        WHERE id IN (SELECT id FROM events WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[])
          AND reservation_id IS NOT NULL LIMIT ${b})`),
      // Booking events naming it as a companion: found through its guest rows (the reservation guests store runs later).
      (b) => counted(tx`
        UPDATE events SET payload = jsonb_set(payload, '{contact_ids}', (payload->'contact_ids') - ${ids}::text[])
        WHERE id IN (SELECT id FROM events WHERE tenant_id = ${t} AND sandbox = ${s} AND reservation_id IN (
            SELECT reservation_id FROM reservation_guests WHERE tenant_id = ${t} AND sandbox = ${s} AND contact_id = ANY(${ids}::uuid[]))
          AND jsonb_typeof(payload->'contact_ids') = 'array' AND (payload->'contact_ids') ?| ${ids}::text[] LIMIT ${b})`)
    ])
  },
  // The reservation's events as the subject's reservations show them: type, times and facts, no other guest's id.
  export: async (tx, subject) => tagged("events", await tx`
    SELECT jsonb_build_object('id', e.id, 'type', e.type, 'reservation_id', e.reservation_id, 'hotel_id', e.hotel_id,
        'source', e.source, 'payload', e.payload - 'contact_ids', 'created_at', e.created_at) AS row
    FROM events e
    WHERE e.tenant_id = ${subject.scope.tenant_id} AND e.sandbox = ${subject.scope.sandbox} AND e.reservation_id IS NOT NULL
      AND (e.contact_id = ANY(${subject.contactIds as Array<string>}::uuid[]) OR e.reservation_id IN (
        SELECT reservation_id FROM reservation_guests WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
          AND contact_id = ANY(${subject.contactIds as Array<string>}::uuid[])))
    ORDER BY e.created_at, e.id`)
}
