import type { Tx } from "../../core/db/Database.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import { type DateScanDeps, type DateScanPart, scanReservationDates } from "../shared/ReservationDateScan.ts"
import { reservationEventData, type DateEventKey, type ReservationDetails } from "./dateEventPayload.ts"
import { WebhookCommands } from "../../streams/topics.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"

export interface DateScanResult {
  /** False when another worker was scanning at that moment (it covers the same ground). */
  readonly ran: boolean
  readonly events: ReadonlyArray<OutboxMessage>
}

/**
 * Which reservations are due at `now`, per hotel, in the hotel's time zone: for `reservation.checked_in`, those whose
 * check_in is the hotel's local date once the tenant's check-in time (default 15:00) has passed there; likewise
 * check_out and the check-out time (default 12:00). Cancelled and no-show reservations never qualify; every other
 * status does (the events announce the date, whatever the PMS has reported yet). Reservations another deployment
 * sharing the database last wrote are left to its own scan (the events go to the scanning deployment's streams). Only tenants with an enabled
 * subscription to the event (same mode) get keys, so nobody accumulates events no one listens to.
 * The key (reservation, event, local date) is unique: rerunning the scan, or two workers racing, inserts nothing
 * twice, and only inserted keys produce an outbox row, in the same transaction.
 */
const insertDueKeys = (tx: Tx, now: Date, namespace: string) => tx<Array<DateEventKey>>`
  WITH due AS (
    SELECT h.id AS hotel_id, h.timezone, k.event_type, k.local_time, (${now}::timestamptz AT TIME ZONE h.timezone) AS local_now
    FROM hotels h
    LEFT JOIN tenant_settings s ON s.tenant_id = h.tenant_id
    CROSS JOIN LATERAL (VALUES
      ('reservation.checked_in', coalesce(s.check_in_event_time, time '15:00')),
      ('reservation.checked_out', coalesce(s.check_out_event_time, time '12:00'))) AS k(event_type, local_time)
  ), candidates AS (
    SELECT r.id, r.tenant_id, r.sandbox, d.event_type, d.local_now::date AS local_date, d.local_time, d.timezone
    FROM due d JOIN reservations r ON r.hotel_id = d.hotel_id
    WHERE d.local_now::time >= d.local_time
      AND r.status NOT IN ('cancelled', 'no_show')
      AND (r.namespace IS NULL OR r.namespace = ${namespace})
      AND (CASE d.event_type WHEN 'reservation.checked_in' THEN r.check_in ELSE r.check_out END) = d.local_now::date
      AND EXISTS (
        SELECT 1 FROM webhook_subscriptions w
        WHERE w.tenant_id = r.tenant_id AND w.sandbox = r.sandbox AND w.enabled
          AND (d.event_type = ANY(w.event_types) OR '*' = ANY(w.event_types)))
  )
  INSERT INTO reservation_date_events (reservation_id, event_type, local_date, tenant_id, sandbox, local_time, timezone,
    scheduled_at, outbox_id)
  SELECT id, event_type, local_date, tenant_id, sandbox, local_time, timezone,
    (local_date + local_time) AT TIME ZONE timezone, gen_random_uuid()
  FROM candidates
  ON CONFLICT DO NOTHING
  RETURNING reservation_id, event_type, to_char(local_date, 'YYYY-MM-DD') AS local_date,
    to_char(local_time, 'HH24:MI') AS local_time, timezone, scheduled_at, outbox_id, tenant_id, sandbox`

/** Reservation fields and the holder's contact (else the first guest with a contact) for the events' payloads. */
const loadDetails = (tx: Tx, ids: ReadonlyArray<string>) => tx<Array<ReservationDetails>>`
  SELECT r.id, r.hotel_id, r.status, to_char(r.check_in, 'YYYY-MM-DD') AS check_in,
    to_char(r.check_out, 'YYYY-MM-DD') AS check_out, r.confirmation_number, r.booking_id, r.source, r.channel,
    r.amount::float8 AS amount, r.currency,
    c.id AS contact_id, c.first_name, c.last_name, c.email, c.phone, c.language, c.nationality
  FROM reservations r
  LEFT JOIN LATERAL (
    SELECT g.contact_id FROM reservation_guests g
    WHERE g.reservation_id = r.id AND g.contact_id IS NOT NULL ORDER BY g.is_holder DESC, g.position LIMIT 1) h ON true
  LEFT JOIN contacts c ON c.id = h.contact_id
  WHERE r.id = ANY(${ids as Array<string>}::uuid[])`

/**
 * The webhook part of the reservation date scan (actors/shared/ReservationDateScan.ts), safe to run as often as wanted:
 * due keys not yet recorded become `reservation.checked_in` / `.checked_out` webhook commands, so a reservation entered
 * after its hotel's event time still gets its event at the next run that same local day.
 */
export const webhookDateEvents: DateScanPart<{ readonly namespace: string }> = async (tx, now, deps) => {
  const keys = await insertDueKeys(tx, now, deps.namespace)
  if (keys.length === 0) return []
  const details = new Map((await loadDetails(tx, keys.map((k) => k.reservation_id))).map((d) => [d.id, d]))
  const occurred_at = now.toISOString()
  return keys.map((k) => ({
    ...WebhookCommands.message(k.outbox_id, outboxSubject(deps.namespace, "cmd", `webhook.${k.event_type}`), {
      tenant_id: k.tenant_id, sandbox: k.sandbox, occurred_at, event_type: k.event_type, data: reservationEventData(k, details.get(k.reservation_id)!)
    }),
    tenant_id: k.tenant_id
  }))
}

/** The scan of this part alone at `now`, under the scan's lock (tests pass the `now` they need). */
export const runDateScan = async (deps: DateScanDeps, now: Date, options: { waitForLock?: boolean } = {}): Promise<DateScanResult> => {
  const { ran, messages } = await scanReservationDates(deps, now, { events: webhookDateEvents }, options)
  return { ran, events: messages.events }
}
