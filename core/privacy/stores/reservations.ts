import type { Tx } from "../../db/Database.ts"
import type { PrivacyStore, Subject } from "../store.ts"
import { needlesOf } from "./needles.ts"
import { counted, INTERNAL, inSteps, tagged } from "./rows.ts"

// A reservation is the hotel's record of a stay: its facts (hotel, dates, status, amounts, channel) are kept for the
// hotel's statistics and accounts, without the person; the guest's own row on it (names, contact details, document,
// date of birth, address) goes. A companion's row on the same reservation is theirs and stays.

/** The subject's guest rows: linked to one of its contacts, or carrying one of its identifiers (a guest never linked). */
const guestRows = (tx: Tx, subject: Subject) => {
  const n = needlesOf(subject)
  return tx`
    SELECT reservation_id, position FROM reservation_guests
    WHERE tenant_id = ${subject.scope.tenant_id} AND sandbox = ${subject.scope.sandbox}
      AND (contact_id = ANY(${n.contactIds}::uuid[]) OR email = ANY(${n.emails}::text[]) OR phone = ANY(${n.phones}::text[]))`
}

/**
 * Free text of the reservation (the PMS's comments, its metadata, the notes of its extras) may describe the guest and
 * cannot be told apart: cleared on every reservation the subject is a guest on. Runs before the guest rows go (they
 * are how it finds them).
 */
export const reservationFactsStore: PrivacyStore = {
  store: "reservation_facts",
  action: "anonymised",
  tables: ["reservations"],
  holds: "stay facts (hotel, dates, status, amounts, channel) and the PMS's free text (comments, metadata, notes of extras)",
  retention: "kept (hotel statistics and accounts); an erasure clears the free text of the subject's reservations",
  erase: async (tx, subject, limit) => counted(tx`
    UPDATE reservations SET comments = NULL, metadata = NULL, updated_at = now(),
      extras = (SELECT coalesce(jsonb_agg(e - 'notes'), '[]'::jsonb) FROM jsonb_array_elements(extras) e)
    WHERE id IN (
      SELECT r.id FROM reservations r
      WHERE r.tenant_id = ${subject.scope.tenant_id} AND r.sandbox = ${subject.scope.sandbox}
        AND r.id IN (SELECT reservation_id FROM (${guestRows(tx, subject)}) g)
        AND (r.comments IS NOT NULL OR r.metadata IS NOT NULL OR jsonb_path_exists(r.extras, '$[*].notes'))
      LIMIT ${limit})`),
  // The reservations are exported with the subject's guest rows (reservation_guests below).
  export: async () => []
}

export const reservationGuestsStore: PrivacyStore = {
  store: "reservation_guests",
  action: "deleted",
  tables: ["reservation_guests"],
  holds: "a guest on a reservation: names, email, phone, date of birth, gender, nationality, document, address, consents",
  retention: "kept with the reservation (no expiry): removed by an erasure; a later feed of the reservation does not bring a suppressed guest back",
  erase: (tx, subject, limit) => inSteps(limit, [
    (b) => counted(tx`DELETE FROM reservation_guests WHERE (reservation_id, position) IN (
      SELECT reservation_id, position FROM (${guestRows(tx, subject)}) g LIMIT ${b})`)
  ]),
  // The subject's own guest rows, each with its reservation's facts: never another guest's row, nor the free text.
  export: async (tx, subject) => tagged("reservation_guests", await tx`
    SELECT (to_jsonb(g) - ${[...INTERNAL, "reservation_id", "position"]}::text[]) || jsonb_build_object('reservation', jsonb_build_object(
        'reservation_id', r.id, 'external_reservation_id', r.external_id, 'hotel_id', r.hotel_id, 'hotel', h.name,
        'confirmation_number', r.confirmation_number, 'check_in', r.check_in, 'check_out', r.check_out, 'nights', r.nights,
        'booking_date', r.booking_date, 'status', r.status, 'guest_stage', r.guest_stage, 'channel', r.channel, 'source', r.source,
        'room_type', r.room_type, 'room_number', r.room_number, 'rate_plan', r.rate_plan, 'amount', r.amount, 'currency', r.currency,
        'stays', r.stays, 'extras', (SELECT coalesce(jsonb_agg(e - 'notes'), '[]'::jsonb) FROM jsonb_array_elements(r.extras) e),
        'created_at', r.created_at, 'updated_at', r.updated_at)) AS row
    FROM (${guestRows(tx, subject)}) m
    JOIN reservation_guests g ON g.reservation_id = m.reservation_id AND g.position = m.position
    JOIN reservations r ON r.id = g.reservation_id
    JOIN hotels h ON h.id = r.hotel_id
    ORDER BY r.check_in, r.id`)
}
